#!/usr/bin/env bash
# pcl lock prints what perf lock prints.
#   lock-record-*     perf lock record and pcl lock record of the same
#                     workload (pcl bench sched messaging, whose senders and
#                     receivers contend on socket and runqueue locks) both
#                     hold contention_begin/end samples with call chains;
#   lock-con-FILE-OPT pcl lock contention on perf's file and on pcl's prints
#                     perf lock contention's table byte for byte (it is on
#                     stderr, as perf's), with each -k key, -t, -E, -q, -F;
#                     ties come out in perf's order, so no canonicalization;
#                     --stack-skip, --max-stack, and -v's call chains too;
#   lock-report-*,    pcl lock report (each key, -t, -c, -F, -E, -q) and info
#   lock-info-*       (-t, -m) print perf's, on both files;
#   lock-addr         -l (a later perf's option): one line per lock, whose
#                     contended counts add up to those of the caller table;
#   lock-live-*       live mode (-b, or a command without -i): the table of
#                     a run, its total contended in the range of a recorded
#                     run's, and perf's test's `-a -b -E 1 -q` is one line;
#                     a recorder that cannot start (no such pid): one line;
#   lock-warn-no-end  a file of contention_begin alone: perf's table of 0 ns
#                     waits, after one warning line that says why;
#   lock-err-*        a missing file, a file without lock events (perf's
#                     message), a file cut before its features (it says so),
#                     a --kallsyms file that is not there,
#                     an unknown key or field: one line, non-zero.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip lock "perf is not installed"
	exit 0
fi
[ -d /sys/kernel/tracing/events/lock ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d /sys/kernel/tracing/events/lock/contention_begin ]; then
	skip lock "this kernel has no lock:contention_begin tracepoint"
	exit 0
fi
export HOME=$TMP # perf's and pcl's build-id caches
load=("$PCL" bench sched messaging -g 4)

perf lock record -o "$TMP/perf.data" -- "${load[@]}" >"$TMP/perf.rec" 2>&1
"$PCL" lock record -o "$TMP/pcl.data" -- "${load[@]}" >"$TMP/pcl.rec" 2>&1
files=()
for who in perf pcl; do
	n=$(perf script -i "$TMP/$who.data" -F event 2>/dev/null | grep -c contention_begin)
	if [ "${n:-0}" -lt 10 ]; then
		not_ok "lock-record-$who" "$who lock record: $n contention_begin samples" \
			"$(show "$TMP/$who.rec")"
		continue
	fi
	if ! perf evlist -v -i "$TMP/$who.data" | grep -q 'contention_end.*CALLCHAIN'; then
		not_ok "lock-record-$who" "no call chains in $who's recording" \
			"$(perf evlist -v -i "$TMP/$who.data" 2>&1)"
		continue
	fi
	ok "lock-record-$who ($n waits)"
	files+=("$who")
done

opts=("" "-k contended" "-k wait_max" "-k wait_min" "-k avg_wait" "-t" "-t -k contended"
	"-E 3" "-E 0" "-q -E 5" "-F contended,wait_min -k avg_wait" "-F wait_max,contended" "-q"
	"--stack-skip 2" "--max-stack 4" "--stack-skip 0 --max-stack 3" "--stack-skip 5 -t")
for f in "${files[@]}"; do
	for o in "${opts[@]}"; do
		name="lock-con-$f${o:+-}$(echo "$o" | tr -d ' ,-')"
		# shellcheck disable=SC2086
		perf lock contention -i "$TMP/$f.data" $o >"$TMP/p.out" 2>"$TMP/p.err"
		# shellcheck disable=SC2086
		"$PCL" lock contention -i "$TMP/$f.data" $o >"$TMP/c.out" 2>"$TMP/c.err"
		if [ -s "$TMP/c.out" ]; then
			not_ok "$name" "pcl wrote to stdout (perf's table is on stderr)" "$(show "$TMP/c.out")"
			continue
		fi
		diff_or_ok "$name" "$TMP/p.err" "$TMP/c.err" "perf lock con $o" "pcl lock con $o"
	done
	for o in "report" "report -k contended" "report -k wait_min" "report -k avg_wait" \
		"report -k wait_max -F acquired,wait_total" "report -t" "report -c" \
		"report -c -k wait_max" "report -E 3 -q" "info -t" "info -m"; do
		name="lock-$(echo "$o" | tr ' ' _ | tr -d ',-')-$f"
		# shellcheck disable=SC2086
		perf lock $o -i "$TMP/$f.data" >/dev/null 2>"$TMP/p.err"
		# shellcheck disable=SC2086
		"$PCL" lock $o -i "$TMP/$f.data" >/dev/null 2>"$TMP/c.err"
		diff_or_ok "$name" "$TMP/p.err" "$TMP/c.err" "perf lock $o" "pcl lock $o"
	done
	# -v: each caller's chain under it (perf's own debug lines aside)
	perf lock contention -i "$TMP/$f.data" -v -E 5 2>&1 >/dev/null |
		grep -E '^([[:space:]]|$|===|bad|histogram)' >"$TMP/p.err"
	"$PCL" lock contention -i "$TMP/$f.data" -v -E 5 2>"$TMP/c.err" >/dev/null
	diff_or_ok "lock-con-$f-v" "$TMP/p.err" "$TMP/c.err" "perf lock con -v" "pcl lock con -v"
	# kernel symbols (and the lock sections' bounds) from a kallsyms copy
	cp /proc/kallsyms "$TMP/kallsyms"
	perf lock contention -i "$TMP/$f.data" -E 10 2>"$TMP/p.err"
	"$PCL" lock contention -i "$TMP/$f.data" -E 10 --kallsyms "$TMP/kallsyms" 2>"$TMP/c.err"
	diff_or_ok "lock-con-$f-kallsyms" "$TMP/p.err" "$TMP/c.err" "perf lock con" "pcl lock con --kallsyms"
	# the alias, and perf lock's options before the subcommand
	perf lock -i "$TMP/$f.data" con -E 4 2>"$TMP/p.err"
	"$PCL" lock -i "$TMP/$f.data" con -E 4 2>"$TMP/c.err"
	diff_or_ok "lock-con-$f-alias" "$TMP/p.err" "$TMP/c.err" "perf lock -i F con" "pcl lock -i F con"
done

# -l: perf 6.1 has no such option; its lines must account for the same waits
if [ ${#files[@]} -gt 0 ]; then
	f=${files[0]}
	"$PCL" lock con -i "$TMP/$f.data" -q 2>"$TMP/caller.err"
	"$PCL" lock con -i "$TMP/$f.data" -q -l 2>"$TMP/addr.err"
	"$PCL" lock con -i "$TMP/$f.data" -l -E 1 2>"$TMP/addr1.err"
	a=$(awk '{ n += $1 } END { print n + 0 }' "$TMP/caller.err")
	b=$(awk '{ n += $1 } END { print n + 0 }' "$TMP/addr.err")
	if [ "$a" -gt 0 ] && [ "$a" = "$b" ] && grep -qE '^ +[0-9]+ .*  [0-9a-f]{16}   ' "$TMP/addr.err" &&
		head -1 "$TMP/addr1.err" | grep -q 'address   symbol$'; then
		ok "lock-addr"
	else
		not_ok "lock-addr" "contended: $a by caller, $b by lock" "$(show "$TMP/addr1.err")" \
			"$(show "$TMP/addr.err" 5)"
	fi
fi

# live mode
"$PCL" lock contention -- "${load[@]}" >"$TMP/live.out" 2>"$TMP/live.err"
rc=$?
live=$(awk 'NR > 2 { n += $1 } END { print n + 0 }' "$TMP/live.err")
rec=$(perf lock contention -i "$TMP/perf.data" -q 2>&1 | awk '{ n += $1 } END { print n + 0 }')
if [ $rc -eq 0 ] && head -1 "$TMP/live.err" | grep -q '^ contended   total wait' &&
	grep -q 'Total time' "$TMP/live.out" && [ "$live" -gt 0 ]; then
	ok "lock-live-command (contended: $live live, $rec in another, recorded run)"
else
	not_ok "lock-live-command" "exit $rc; contended $live live, $rec recorded" \
		"$(show "$TMP/live.err")" "$(show "$TMP/live.out" 5)"
fi
# Live and recorded on the same waits: a system-wide live run around a
# system-wide recording sees every wait the recording holds (its window
# holds the recording's), so it counts at least as many; how much more
# depends on the machine's load, so that is not bounded.
"$PCL" lock con -a -q -- "$PCL" lock record -a -o "$TMP/nested.data" -- "${load[@]}" \
	>/dev/null 2>"$TMP/nested-live.err"
rc=$?
live=$(awk '{ n += $1 } END { print n + 0 }' "$TMP/nested-live.err")
rec=$("$PCL" lock con -i "$TMP/nested.data" -q 2>&1 | awk '{ n += $1 } END { print n + 0 }')
if [ $rc -eq 0 ] && [ "$rec" -gt 0 ] && [ "$live" -ge "$rec" ]; then
	ok "lock-live-covers-recording (contended: $live live, $rec recorded inside it)"
else
	not_ok "lock-live-covers-recording" "exit $rc; contended $live live < $rec recorded inside it" \
		"$(show "$TMP/nested-live.err" 5)"
fi
"$PCL" lock con -a -b -E 1 -q -- "${load[@]}" >/dev/null 2>"$TMP/bpf.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$TMP/bpf.err")" = 1 ] && grep -qE '^ +[0-9]+ ' "$TMP/bpf.err"; then
	ok "lock-live-system-wide"
else
	not_ok "lock-live-system-wide" "exit $rc, expected one line:" "$(show "$TMP/bpf.err")"
fi
if "$PCL" lock con -b true >/dev/null 2>"$TMP/true.err"; then
	ok "lock-live-true"
else
	not_ok "lock-live-true" "pcl lock con -b true failed" "$(show "$TMP/true.err")"
fi
# a recorder that fails before it writes (no such process): its one line,
# not a "not a perf.data stream" about the empty pipe after it
"$PCL" lock con -p 2147483647 >/dev/null 2>"$TMP/nopid.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/nopid.err")" = 1 ]; then
	ok "lock-live-no-pid"
else
	not_ok "lock-live-no-pid" "exit $rc, expected one line:" "$(show "$TMP/nopid.err")"
fi

# errors
"$PCL" lock contention -i "$TMP/missing.data" >/dev/null 2>"$TMP/e1.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e1.err")" = 1 ] && grep -q "missing.data" "$TMP/e1.err"; then
	ok "lock-err-missing"
else
	not_ok "lock-err-missing" "exit $rc" "$(show "$TMP/e1.err")"
fi
# a file of contention_begin alone: perf's table (every wait 0 ns), and
# one warning line before it that says why the times are 0
perf record -q -o "$TMP/begin.data" -e lock:contention_begin -c 1 -g -- \
	"$PCL" bench sched messaging -g 1 -l 20 >/dev/null 2>&1
perf lock contention -i "$TMP/begin.data" >/dev/null 2>"$TMP/p.err"
"$PCL" lock contention -i "$TMP/begin.data" >/dev/null 2>"$TMP/c.err"
if [ "$(grep -c 'no lock:contention_end' "$TMP/c.err")" = 1 ] &&
	grep -v 'no lock:contention_end' "$TMP/c.err" | cmp -s "$TMP/p.err" -; then
	ok "lock-warn-no-end"
else
	not_ok "lock-warn-no-end" "perf's table then pcl's:" "$(show "$TMP/p.err")" \
		"$(show "$TMP/c.err")"
fi
perf record -q -o "$TMP/nolock.data" -e cpu-clock -- true >/dev/null 2>&1
perf lock contention -i "$TMP/nolock.data" >/dev/null 2>"$TMP/p.err"
"$PCL" lock contention -i "$TMP/nolock.data" >/dev/null 2>"$TMP/c.err"
rc=$?
if [ $rc -ne 0 ] && cmp -s "$TMP/p.err" "$TMP/c.err"; then
	ok "lock-err-no-lock-events"
else
	not_ok "lock-err-no-lock-events" "exit $rc; perf's message then pcl's:" \
		"$(show "$TMP/p.err")" "$(show "$TMP/c.err")"
fi
# a file cut short in its feature sections (the recorder killed): its
# tracepoint formats are gone; the error says the file is cut, not "record it"
if [ -s "$TMP/pcl.data" ]; then
	# the data section's end (header: data offset at byte 40, size at 48)
	end=$(od -An -tu8 -j40 -N16 "$TMP/pcl.data" | awk '{ print $1 + $2 }')
	head -c "$end" "$TMP/pcl.data" >"$TMP/cut.data"
	"$PCL" lock contention -i "$TMP/cut.data" >/dev/null 2>"$TMP/e.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ] && grep -q "cut short" "$TMP/e.err"; then
		ok "lock-err-cut-file"
	else
		not_ok "lock-err-cut-file" "exit $rc" "$(show "$TMP/e.err")"
	fi
fi
for bad in "-k foo" "-F contended,foo" "-E x" "-F ,"; do
	# shellcheck disable=SC2086
	"$PCL" lock contention -i "$TMP/nolock.data" $bad >/dev/null 2>"$TMP/e.err"
	rc=$?
	name="lock-err-$(echo "$bad" | tr -d ' ,-')"
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(show "$TMP/e.err")"
	fi
done
"$PCL" lock script -i "$TMP/nolock.data" >/dev/null 2>"$TMP/e.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "not supported by pcl" "$TMP/e.err"; then
	ok "lock-err-script"
else
	not_ok "lock-err-script" "exit $rc" "$(show "$TMP/e.err")"
fi
for bad in "con -m" "report -l" "info" "-k wait_total con"; do
	# shellcheck disable=SC2086
	"$PCL" lock $bad -i "$TMP/nolock.data" >/dev/null 2>"$TMP/e.err"
	rc=$?
	name="lock-err-$(echo "$bad" | tr -d ' ,-')"
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(show "$TMP/e.err")"
	fi
done
# a --kallsyms file that is not there: an error, not a table of "Unknown"
# callers (perf's)
for f in "${files[@]}"; do
	"$PCL" lock con -i "$TMP/$f.data" --kallsyms "$TMP/nonexistent" >/dev/null 2>"$TMP/e.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ] && grep -q "cannot read" "$TMP/e.err"; then
		ok "lock-err-kallsyms-$f"
	else
		not_ok "lock-err-kallsyms-$f" "exit $rc" "$(show "$TMP/e.err")"
	fi
	break
done
