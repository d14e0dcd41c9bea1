#!/usr/bin/env bash
# pcl stat as an unprivileged user with perf_event_paranoid at 2: it falls
# back to user-only counting, names the events with ":u" like perf, and
# says so once on stderr.
. "$(dirname "$0")/lib.sh"

PARANOID=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" -ne 0 ]; then
	skip stat-unpriv "needs root to set $PARANOID and drop privileges"
	exit 0
fi
if ! command -v setpriv >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
	skip stat-unpriv "needs setpriv and a 'nobody' user"
	exit 0
fi
if [ ! -x "$PCL" ]; then
	not_ok stat-unpriv-pcl-built "no executable at $PCL"
	exit 0
fi
group=$(id -gn nobody)
saved=$(cat $PARANOID)
trap 'echo "$saved" >'"$PARANOID"'; rm -rf "$TMP"' EXIT
if ! echo 2 >$PARANOID 2>/dev/null; then
	skip stat-unpriv "cannot write $PARANOID"
	exit 0
fi
NOBODY=(setpriv --reuid=nobody --regid="$group" --clear-groups)
as_nobody() { "${NOBODY[@]}" "$@"; }

# nobody must be able to run the binary: copy it (and nothing else) to a
# directory nobody can read if the build tree is closed to others.
pcl=$PCL
if ! as_nobody test -x "$pcl"; then
	pub=$(mktemp -d /tmp/pcl-e2e-pub.XXXXXX)
	chmod 755 "$pub"
	cp "$PCL" "$pub/pcl" && chmod 755 "$pub/pcl"
	pcl=$pub/pcl
	trap 'echo "$saved" >'"$PARANOID"'; rm -rf "$TMP" "$pub"' EXIT
fi

run up "${NOBODY[@]}" "$pcl" stat -- true
if crashed "$TMP/up.err" $RC || [ $RC -ne 0 ]; then
	not_ok stat-unpriv-runs "as nobody, paranoid 2: pcl stat -- true exited $RC:" "$(show "$TMP/up.err" 20)"
else
	ok stat-unpriv-runs
fi
# The counter lines' event names, in order.
names() { awk '/^ +([0-9][0-9.,]*|<not supported>|<not counted>) +/ && !/ seconds / { sub(/^ +(<not supported>|<not counted>|[0-9][0-9.,]*) +(msec +)?/, ""); print $1 }' "$1"; }
got=$(names "$TMP/up.err" | tr '\n' ' ')
want="task-clock:u context-switches:u cpu-migrations:u page-faults:u cycles:u instructions:u branches:u branch-misses:u "
if [ "$got" = "$want" ]; then ok stat-unpriv-names; else
	not_ok stat-unpriv-names "as nobody, paranoid 2: event names '$got'" "want '$want'" "$(show "$TMP/up.err" 20)"
fi
tc=$(awk '$3 == "task-clock:u" { print $1 }' "$TMP/up.err")
if awk -v t="$tc" 'BEGIN { exit !(t + 0 > 0) }'; then ok stat-unpriv-counts; else
	not_ok stat-unpriv-counts "as nobody, paranoid 2: task-clock:u '$tc'; want > 0"
fi
# The note: stderr lines that are not part of perf's stat output.
notes=$(grep -vE '^$|Performance counter stats|seconds (time elapsed|user|sys)$|^ +([0-9][0-9.,]*|<not supported>|<not counted>) ' "$TMP/up.err")
n=$(grep -c . <<<"$notes")
if [ "$n" -eq 1 ] && grep -qi 'user' <<<"$notes"; then ok stat-unpriv-note; else
	not_ok stat-unpriv-note "as nobody, paranoid 2: want one note line mentioning user-only counting; got $n:" "$notes"
fi
if have_perf; then
	run upf "${NOBODY[@]}" perf stat -- true
	fnames=$(names "$TMP/upf.err" | tr '\n' ' ')
	if [ -n "$fnames" ] && [ "$got" = "$fnames" ]; then ok stat-unpriv-names-vs-perf; else
		not_ok stat-unpriv-names-vs-perf "event names as nobody: pcl '$got', perf '$fnames'"
	fi
	# The same output as perf's once the note is taken out.
	if [ -n "$notes" ]; then grep -vxF -- "$notes" "$TMP/up.err"; else cat "$TMP/up.err"; fi | unscale | norm_layout >"$TMP/up.l"
	unscale <"$TMP/upf.err" | norm_layout >"$TMP/upf.l"
	diff_or_ok stat-unpriv-layout-vs-perf "$TMP/upf.l" "$TMP/up.l" perf pcl
fi
# Explicit events get the suffix too, and an exact count still comes out.
writes=$(workload writes)
if as_nobody test -x "$writes"; then
	run upw "${NOBODY[@]}" "$pcl" stat -x, -e task-clock,page-faults -- "$writes" 5
	if [ $RC -eq 0 ] && [ -n "$(csv_count "$TMP/upw.err" task-clock:u)" ] &&
		[ -n "$(csv_count "$TMP/upw.err" page-faults:u)" ]; then
		ok stat-unpriv-explicit-events
	else
		not_ok stat-unpriv-explicit-events "as nobody: pcl stat -x, -e task-clock,page-faults: exit $RC;" \
			"want task-clock:u and page-faults:u rows:" "$(show "$TMP/upw.err")"
	fi
else
	skip stat-unpriv-explicit-events "user nobody cannot run $writes"
fi
# A refusal names perf_event_paranoid only when the level is the cause: a
# whole CPU at level 2 is, another user's process (pid 1) is not (ptrace).
run upa "${NOBODY[@]}" "$pcl" stat -a -e task-clock -- true
if [ $RC -ne 0 ] && grep -qE 'perf_event_paranoid is 2: .*CPU' "$TMP/upa.err"; then
	ok stat-unpriv-paranoid-blamed
else
	not_ok stat-unpriv-paranoid-blamed "as nobody, paranoid 2: pcl stat -a: exit $RC; want a failure naming" \
		"perf_event_paranoid 2 as what forbids counting a whole CPU:" "$(show "$TMP/upa.err")"
fi
run upp "${NOBODY[@]}" "$pcl" stat -p 1 -e task-clock:u -- true
if [ $RC -ne 0 ] && grep -q "cannot open event" "$TMP/upp.err" &&
	! grep -qE 'perf_event_paranoid (forbids|is [0-9-])' "$TMP/upp.err"; then
	ok stat-unpriv-paranoid-not-blamed
else
	not_ok stat-unpriv-paranoid-not-blamed "as nobody, paranoid 2: pcl stat -p 1 -e task-clock:u: exit $RC;" \
		"level 2 allows user-space counting of a task, so the refusal (ptrace) must not blame it:" \
		"$(show "$TMP/upp.err")"
fi
exit 0
