#!/usr/bin/env bash
# pcl list: the events of this machine, grouped like perf list, with glob
# filtering, a JSON form, and a mark on events this machine cannot count.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok list-pcl-built "no executable at $PCL"
	exit 0
fi

run list "$PCL" list
if [ $RC -ne 0 ] || crashed "$TMP/list.err" $RC; then
	not_ok list-runs "pcl list exited $RC:" "$(show "$TMP/list.err")"
	exit 0
fi
ok list-runs
L=$TMP/list.out
# Names in a list: the text before the first run of 2+ blanks or '[', split at " OR ".
names_of() {
	sed -nE 's/^ +([^ []([^ []| [^ [])*).*/\1/p' "$1" | sed 's/ OR /\n/g' | sed 's/ *$//' | sort -u
}
names_of "$L" >"$TMP/pcl.names"

# --- the lines perf list has for generic events ----------------------------
missing=""
for want in 'cpu-cycles OR cycles' 'task-clock' 'context-switches OR cs' 'page-faults OR faults' \
	'L1-dcache-load-misses' 'sched:sched_switch' 'syscalls:sys_enter_write' 'mem:<addr>[/len][:access]' \
	'duration_time'; do
	grep -qE "^ +$(sed 's/[][\/.*]/\\&/g' <<<"$want")( {2,}|\$)" "$L" || missing="$missing '$want'"
done
if [ -z "$missing" ]; then ok list-known-events; else
	not_ok list-known-events "pcl list lacks lines for:$missing" "$(show "$L" 30)"
fi

# --- every software and tool event perf lists -----------------------------
if have_perf; then
	perf list 2>/dev/null >"$TMP/perf.list"
	grep -E '\[(Software|Tool) event\]' "$TMP/perf.list" >"$TMP/perf.sw"
	names_of "$TMP/perf.sw" >"$TMP/perf.sw.names"
	miss=$(comm -23 "$TMP/perf.sw.names" "$TMP/pcl.names" | tr '\n' ' ')
	if [ -s "$TMP/perf.sw.names" ] && [ -z "$miss" ]; then ok list-software-events; else
		not_ok list-software-events "software/tool event names perf list shows and pcl list lacks: '$miss'" \
			"perf's: $(tr '\n' ' ' <"$TMP/perf.sw.names")"
	fi
	# The same "NAME OR ALIAS" spelling on each software line.
	miss=$(while IFS= read -r l; do
		n=$(sed -E 's/^ +//; s/ {2,}.*//' <<<"$l")
		grep -qE "^ +$(sed 's/[][\/.*]/\\&/g' <<<"$n") {2,}" "$L" || printf "'%s' " "$n"
	done <"$TMP/perf.sw")
	if [ -z "$miss" ]; then ok list-software-aliases; else
		not_ok list-software-aliases "perf list lines (name OR alias) with no pcl list line spelled the same: $miss"
	fi
	# Tracepoints: a few by name, then the whole set.
	grep 'Tracepoint event' "$TMP/perf.list" | names_of /dev/stdin >"$TMP/perf.tp"
	ntp=$(wc -l <"$TMP/perf.tp")
	if [ "$ntp" -gt 0 ]; then
		spot="sched:sched_switch irq:irq_handler_entry syscalls:sys_enter_openat $(sed -n "1p;$((ntp / 2))p;${ntp}p" "$TMP/perf.tp" | tr '\n' ' ')"
		miss=""
		for t in $spot; do grep -qxF "$t" "$TMP/pcl.names" || miss="$miss $t"; done
		if [ -z "$miss" ]; then ok list-tracepoints-spot; else
			not_ok list-tracepoints-spot "tracepoints perf list shows and pcl list lacks:$miss"
		fi
		miss=$(comm -23 "$TMP/perf.tp" "$TMP/pcl.names")
		if [ -z "$miss" ]; then ok list-tracepoints-all; else
			not_ok list-tracepoints-all "$(grep -c . <<<"$miss") of perf's $ntp tracepoints are not in pcl list, e.g.:" \
				"$(head -10 <<<"$miss")"
		fi
		# and none perf hides: perf lists only events with an id file
		extra=$(grep 'Tracepoint event' "$L" | names_of /dev/stdin | comm -13 "$TMP/perf.tp" -)
		if [ -z "$extra" ]; then ok list-tracepoints-only-perfs; else
			not_ok list-tracepoints-only-perfs "$(grep -c . <<<"$extra") tracepoints in pcl list that perf list hides, e.g.:" \
				"$(head -10 <<<"$extra")"
		fi
	else
		skip list-tracepoints "perf list shows no tracepoints (tracefs not mounted?)"
	fi
else
	skip list-vs-perf "perf is not installed"
fi

# --- events this machine cannot count are marked --------------------------
# Whatever the marker, the cycles line has it and the task-clock line not:
# compare what is left once the name and the "[... event]" label are gone.
rest() { grep -E "^ +$1( OR [^ ]+)? {2,}" "$L" | head -1 | sed -E 's/^ +[^ ]+( OR [^ ]+)? +//; s/\[[A-Za-z ]*event\]//; s/[[:space:]]+/ /g; s/^ //; s/ $//'; }
cyc=$(rest 'cpu-cycles')
tc=$(rest 'task-clock')
cline=$(grep -E '^ +cpu-cycles' "$L" | head -1)
tline=$(grep -E '^ +task-clock' "$L" | head -1)
if [ -n "$cline" ] && [ -n "$cyc" ] && [ "$cyc" != "$tc" ]; then ok list-unsupported-marked; else
	not_ok list-unsupported-marked "cycles cannot be counted here (no PMU): its line should carry a marker the task-clock line lacks" \
		"cycles:     '$cline'" "task-clock: '$tline'"
fi
if grep -qE "^ +task-clock( {2,}|$)" "$L" && ! grep -E '^ +task-clock' "$L" | grep -qi 'not supported'; then
	ok list-supported-unmarked
else
	not_ok list-supported-unmarked "the task-clock line should not be marked unsupported: '$tline'"
fi

# --- glob filter ------------------------------------------------------------
run glob "$PCL" list 'sched:*'
others=$(grep -E '^ +[^ ]' "$TMP/glob.out" | grep -vE '^ +sched:')
if [ $RC -eq 0 ] && grep -qE '^ +sched:sched_switch( |$)' "$TMP/glob.out" && [ -z "$others" ]; then
	ok list-glob
else
	not_ok list-glob "pcl list 'sched:*': exit $RC; want sched:sched_switch and only sched: events; other lines:" \
		"$(head -5 <<<"$others")" "$(show "$TMP/glob.out" 5)"
fi
if have_perf; then
	perf list 'sched:*' 2>/dev/null | names_of /dev/stdin >"$TMP/perf.sched"
	names_of "$TMP/glob.out" >"$TMP/pcl.sched"
	diff_or_ok list-glob-vs-perf "$TMP/perf.sched" "$TMP/pcl.sched" "perf list 'sched:*'" "pcl list 'sched:*'"
	# perf list's type filter: sw, hw, cache, tracepoint.
	run sw "$PCL" list sw
	perf list sw 2>/dev/null | names_of /dev/stdin >"$TMP/perf.swf"
	names_of "$TMP/sw.out" >"$TMP/pcl.swf"
	if [ $RC -ne 0 ]; then
		not_ok list-type-filter-sw "pcl list sw exited $RC (perf list sw lists the software events):" "$(show "$TMP/sw.err")"
	else
		diff_or_ok list-type-filter-sw "$TMP/perf.swf" "$TMP/pcl.swf" "perf list sw" "pcl list sw"
	fi
fi
run nomatch "$PCL" list 'pcl-no-such-event-*'
if crashed "$TMP/nomatch.err" $RC; then
	not_ok list-glob-no-match "pcl list of a glob matching nothing: exit $RC:" "$(show "$TMP/nomatch.err")"
else
	ok list-glob-no-match
fi

# --- --json ---------------------------------------------------------------
run json "$PCL" list --json
if [ $RC -ne 0 ]; then
	not_ok list-json "pcl list --json exited $RC:" "$(show "$TMP/json.err")"
elif command -v python3 >/dev/null 2>&1 || command -v jq >/dev/null 2>&1; then
	# One JSON document (or one per line); every name we know must be in it.
	if command -v python3 >/dev/null 2>&1; then
		names=$(python3 -c '
import json, sys
t = open(sys.argv[1]).read()
try:
    docs = [json.loads(t)]
except ValueError:
    docs = [json.loads(l) for l in t.splitlines() if l.strip()]
def walk(o):
    if isinstance(o, dict):
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
    elif isinstance(o, str):
        yield o
for d in docs:
    for s in walk(d):
        print(s)' "$TMP/json.out" 2>"$TMP/json.py.err")
		valid=$?
	else
		names=$(jq -r '.. | strings' "$TMP/json.out" 2>"$TMP/json.py.err" ||
			grep -v '^[[:space:]]*$' "$TMP/json.out" | jq -r '.. | strings' 2>"$TMP/json.py.err")
		valid=$?
	fi
	if [ $valid -ne 0 ]; then
		not_ok list-json "pcl list --json is not valid JSON: $(head -3 "$TMP/json.py.err")" "$(show "$TMP/json.out" 5)"
	else
		miss=""
		for n in task-clock cycles sched:sched_switch duration_time; do
			grep -qxF "$n" <<<"$names" || miss="$miss $n"
		done
		if [ -z "$miss" ]; then ok list-json; else
			not_ok list-json "pcl list --json is valid but lacks the names:$miss" "$(show "$TMP/json.out" 5)"
		fi
	fi
else
	skip list-json "neither python3 nor jq to validate JSON"
fi

# --- tracepoints without an id (ftrace's own events) ------------------------
# tracefs gives ftrace:bprint and the like a format but no id: perf_event_open
# cannot open them, perf list hides them, perf stat -e takes the id from the
# format and prints <not supported>.
tfs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -d "$d/events" ] && tfs=$d && break; done
noid=
if [ -n "$tfs" ]; then
	for f in "$tfs"/events/*/*/format; do
		[ -e "${f%/format}/id" ] && continue
		noid=$(sed -E 's|.*/events/([^/]+)/([^/]+)/format$|\1:\2|' <<<"$f")
		break
	done
fi
if [ -z "$noid" ]; then
	skip list-idless-hidden "no tracepoint without an id file here (or no tracefs)"
else
	if grep -qE "^ +$noid( |\$)" "$L"; then
		not_ok list-idless-hidden "pcl list shows $noid, which has no id file (perf list hides it)"
	else
		ok list-idless-hidden
	fi
	run noid "$PCL" stat -x, -e "$noid" -- true
	line=$(grep -F ",$noid," "$TMP/noid.err")
	if [ $RC -eq 0 ] && [[ $line == "<not supported>,,$noid,"* ]]; then
		ok list-idless-stat-not-supported
	else
		not_ok list-idless-stat-not-supported "pcl stat -x, -e $noid -- true: exit $RC; want 0 and a" \
			"'<not supported>' row, as perf stat prints:" "$(show "$TMP/noid.err")"
	fi
	if have_perf; then
		run noidf perf stat -x, -e "$noid" -- true
		fline=$(grep -F ",$noid," "$TMP/noidf.err")
		if [ "$(norm_words <<<"$line")" = "$(norm_words <<<"$fline")" ]; then ok list-idless-stat-vs-perf; else
			not_ok list-idless-stat-vs-perf "pcl stat -x, -e $noid: '$line'; perf: '$fline'"
		fi
	fi
fi
exit 0
