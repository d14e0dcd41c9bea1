#!/usr/bin/env bash
# Regions (pcl_region_begin/end, include/pcl/region.h) in a real program:
# tests/workloads/regions, 4 threads + main × 100 iterations of
# "step" { 3 getppid; "inner" { 2 getppid } }, linked with libpcl.a. The
# report written at exit (PCL_REGIONS=json/text) must give exact counts of
# the tracepoint syscalls:sys_enter_getppid, agree with perf stat's count
# for the whole process, and nothing may be printed when it is not asked for.
. "$(dirname "$0")/lib.sh"

WL="$WORKLOADS/regions"
TP=syscalls:sys_enter_getppid
export PCL_REGION_EVENTS="page-faults,$TP"
if [ ! -x "$WL" ]; then
	skip "region-json" "$WL not built (make tests)"
	exit 0
fi
if [ ! -e /sys/kernel/tracing/events/syscalls/sys_enter_getppid ] &&
	! "$PCL" stat -x, -e "$TP" -- true >/dev/null 2>&1; then
	skip "region-json" "no tracepoint $TP"
	exit 0
fi

# json: structure and exact numbers, with jq (a dependency of make check).
run json env PCL_REGIONS=json PCL_REGIONS_FILE="$TMP/r.json" "$WL" 4 100
if [ "$RC" -ne 0 ] || [ -s "$TMP/json.out" ] || [ -s "$TMP/json.err" ]; then
	not_ok "region-json" "exit $RC, expected 0 and no output; stderr:" "$(show "$TMP/json.err")"
elif ! command -v jq >/dev/null; then
	skip "region-json" "jq is not installed"
else
	got=$(jq -r --arg tp "$TP" '
		(.events | index($tp)) as $i |
		[.regions[] | select(.name == "step")][0] as $s |
		[.regions[] | select(.name == "inner")][0] as $n |
		[ (.regions | length), $s.calls, $s.values[$i], ($s.threads | length),
		  ([$s.threads[] | select(.calls == 100 and .values[$i] == 500)] | length),
		  $n.calls, $n.values[$i],
		  ([$n.threads[] | select(.calls == 100 and .values[$i] == 200)] | length),
		  ([$s.threads[].tid] | unique | length) ] | map(tostring) | join(" ")' "$TMP/r.json" 2>&1)
	want="2 500 2500 5 5 500 1000 5 5"
	if [ "$got" = "$want" ]; then
		ok "region-json"
	else
		not_ok "region-json" "regions, step calls/getppid/threads/exact threads, inner calls/getppid/exact threads, tids:" \
			"got  $got" "want $want" "$(show "$TMP/r.json" 20)"
	fi
fi

# text, to standard error when no file is named
run text env PCL_REGIONS=text "$WL" 2 10
sed -n "/^ Region 'step'/,\$p" "$TMP/text.err" >"$TMP/step.txt"
if [ "$RC" -eq 0 ] && grep -q "^ Region 'step': 30 calls in 3 threads" "$TMP/step.txt" &&
	[ "$(plain_count "$TMP/step.txt" "$TP")" = 150 ] && [ ! -s "$TMP/text.out" ]; then
	ok "region-text-stderr"
else
	not_ok "region-text-stderr" "exit $RC; expected 'step' with 30 calls and 150 $TP on stderr:" \
		"$(show "$TMP/text.err" 20)"
fi

# the library prints nothing unless asked
run quiet "$WL" 2 10
if [ "$RC" -eq 0 ] && [ ! -s "$TMP/quiet.out" ] && [ ! -s "$TMP/quiet.err" ]; then
	ok "region-quiet-by-default"
else
	not_ok "region-quiet-by-default" "exit $RC; stdout/stderr:" "$(show "$TMP/quiet.out")" \
		"$(show "$TMP/quiet.err")"
fi

# %p in PCL_REGIONS_FILE is the process id
run pid env PCL_REGIONS=json PCL_REGIONS_FILE="$TMP/r-%p.json" "$WL" 1 5
files=("$TMP"/r-[0-9]*.json)
if [ "$RC" -eq 0 ] && [ ${#files[@]} -eq 1 ] && [ -s "${files[0]}" ] &&
	grep -q "\"pid\":$(basename "${files[0]}" .json | sed 's/^r-//')," "${files[0]}"; then
	ok "region-file-pid"
else
	not_ok "region-file-pid" "exit $RC; files: ${files[*]}"
fi

# the regions' total agrees with perf stat counting the whole process
if have_perf; then
	run perf env PCL_REGIONS=json PCL_REGIONS_FILE="$TMP/p.json" \
		perf stat -x, -e "$TP" -- "$WL" 4 100
	pc=$(csv_count "$TMP/perf.err" "$TP")
	rc=$(jq -r --arg tp "$TP" '(.events | index($tp)) as $i |
		[.regions[] | select(.name == "step")][0].values[$i]' "$TMP/p.json" 2>/dev/null)
	# the ASan runtime calls getppid() itself, outside any region
	slack=0
	nm "$WL" 2>/dev/null | grep -q __asan_init && slack=10
	if [ -n "$pc" ] && [ -n "$rc" ] && [ "$rc" != null ] &&
		[ "$pc" -ge "$rc" ] && [ "$pc" -le $((rc + slack)) ]; then
		ok "region-agrees-with-perf-stat"
	else
		not_ok "region-agrees-with-perf-stat" "perf stat: '$pc', regions: '$rc'" "$(show "$TMP/perf.err")"
	fi
else
	skip "region-agrees-with-perf-stat" "perf is not installed"
fi
