#!/usr/bin/env bash
# The runnable examples of libpcl's self-measurement API (examples/*.c), run
# from $BUILD/examples and checked on what they print: counts that must be
# exact (page faults, tracepoint hits, watchpoint hits, region calls), the
# function names they find, and the region dump's JSON.
. "$(dirname "$0")/lib.sh"

EX="$BUILD/examples"

# example NAME TAG [ARGS...]: run example NAME as TAG; false (and not ok) if it
# is missing, crashed, or failed. Output in $TMP/TAG.out and $TMP/TAG.err.
example() {
	local name=$1 tag=$2
	shift 2
	if [ ! -x "$EX/$name" ]; then
		not_ok "$tag" "$EX/$name was not built (make tests builds examples/*.c)"
		return 1
	fi
	run "$tag" "$EX/$name" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$tag.err" "$RC"; then
		not_ok "$tag" "$name $* exited with $RC" "stdout:" "$(show "$TMP/$tag.out")" \
			"stderr:" "$(show "$TMP/$tag.err")"
		return 1
	fi
}
# field FILE EVENT: the first number of self-count's line for EVENT.
field() { awk -v ev="$2" '$0 ~ " " ev " " { print $1; exit }' "$1"; }

# ---- self-count: supported events counted, the others <not supported> ----
if example self-count self-count 500; then
	f=$TMP/self-count.out
	pf=$(field "$f" page-faults)
	cs=$(field "$f" context-switches)
	tc=$(field "$f" task-clock)
	bad=
	[ -n "$pf" ] && [ "$pf" -ge 500 ] && [ "$pf" -lt 700 ] || bad+=" page-faults=$pf (want 500..699)"
	[ -n "$cs" ] && [ "$cs" -ge 5 ] || bad+=" context-switches=$cs (want >= 5)"
	[ -n "$tc" ] && [ "$tc" -gt 0 ] || bad+=" task-clock=$tc"
	grep -q 'task-clock.*100.0% of the time counted' "$f" || bad+=" no multiplexing ratio"
	for ev in cycles instructions; do
		grep -qE "(<not supported>|^ *[0-9]+) .* $ev" "$f" || bad+=" no $ev line"
	done
	if [ -z "$bad" ]; then ok self-count; else not_ok self-count "$bad" "$(show "$f")"; fi
fi

# ---- group-read: both members equal, from one read (shared times) ----
if example group-read group-read 20000; then
	f=$TMP/group-read.out
	if grep -q 'syscalls:sys_enter_getppid' "$f"; then
		# the tracepoints count exactly the calls made
		n=$(awk '/sys_enter_getppid|sys_exit_getppid/ && $1 == 20000' "$f" | wc -l)
	else
		n=2 # software fallback: only equality can be checked
	fi
	if grep -q '^values equal, times identical$' "$f" && [ "$n" -eq 2 ]; then
		ok group-read
	else
		not_ok group-read "want two members of 20000 with equal values and times" "$(show "$f")"
	fi
fi

# ---- stop-after-faults: exactly N faults, stopped in touch_pages ----
for n in 300 1000; do
	name=stop-after-faults-$n
	args=("$n")
	[ "$n" = 1000 ] && args=() # the default
	example stop-after-faults "$name" "${args[@]}" || continue
	f=$TMP/$name.out
	if grep -q "^stopped after $n page faults (period $n)" "$f" &&
		grep -qE '^thread [0-9]+ was in touch_pages\+0x[0-9a-f]+ \(ip 0x' "$f"; then
		ok "$name"
	else
		not_ok "$name" "want exactly $n faults and the stop in touch_pages" "$(show "$f")"
	fi
done

# ---- watch-variable: both writers, with the right hit counts and callers ----
if example watch-variable watch-variable; then
	f=$TMP/watch-variable.out
	a=$(grep -c 'wrote in add_deposit, called from run_day <- main$' "$f")
	b=$(grep -c 'wrote in apply_fee, called from run_day <- main$' "$f")
	if [ "$a" -eq 3 ] && [ "$b" -eq 2 ] && grep -q '^shared_total = 286 after 5 writes, 5 hits' "$f"; then
		ok watch-variable
	else
		not_ok watch-variable "want 3 hits in add_deposit and 2 in apply_fee, each from run_day <- main;" \
			"got $a and $b" "$(show "$f")"
	fi
fi

# ---- poll-samples: the self-profile ranks the work by its weight (4:2:1) ----
if example poll-samples poll-samples 300; then
	f=$TMP/poll-samples.out
	top=$(awk 'NR > 1 { print $3; exit }' "$f")
	nsamp=$(awk 'NR == 1 { print $1 }' "$f")
	s() { awk -v fn="$1" '$3 == fn { print $2 }' "$f"; }
	h=$(s heavy_work) m=$(s medium_work) l=$(s light_work)
	if [ "$top" = heavy_work ] && [ "${nsamp:-0}" -ge 150 ] && [ -n "$m" ] && [ -n "$l" ] &&
		[ "$h" -gt "$m" ] && [ "$m" -gt "$l" ]; then
		ok poll-samples
	else
		not_ok poll-samples "want >= 150 samples and heavy_work > medium_work > light_work" "$(show "$f")"
	fi
fi

# ---- regions: the JSON dump, per thread and in total ----
if ! command -v python3 >/dev/null 2>&1; then
	skip regions-json "python3 is not installed"
elif PCL_REGIONS=json PCL_REGIONS_FILE="$TMP/regions.json" example regions regions-json; then
	if out=$(python3 - "$TMP/regions.json" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"]
assert "task-clock" in ev and "page-faults" in ev, "events: %s" % ev
r = {x["name"]: x for x in d["regions"]}
want = {"main": (1, 1), "setup": (1, 1), "worker": (4, 4), "alloc": (40, 4), "compute": (40, 4)}
for name, (calls, threads) in want.items():
    assert name in r, "no region %r in %s" % (name, sorted(r))
    x = r[name]
    assert x["calls"] == calls, "%s: %d calls, want %d" % (name, x["calls"], calls)
    assert len(x["threads"]) == threads, "%s: %d threads, want %d" % (name, len(x["threads"]), threads)
    assert sum(t["calls"] for t in x["threads"]) == calls, "%s: thread calls do not add up" % name
    for t in x["threads"]:
        assert len(t["values"]) == len(ev), "%s: %d values for %d events" % (name, len(t["values"]), len(ev))
tids = {t["tid"] for x in r.values() for t in x["threads"]}
assert len(tids) == 5, "%d distinct threads, want 5 (main and 4 workers)" % len(tids)
workers = {t["tid"] for t in r["worker"]["threads"]}
assert workers == {t["tid"] for t in r["compute"]["threads"]}, "compute ran outside the workers"
assert not workers & {t["tid"] for t in r["main"]["threads"]}, "main ran in a worker"
tc = ev.index("task-clock")
# nesting: a region's counts include those of the regions inside it
assert r["worker"]["values"][tc] >= r["compute"]["values"][tc], "worker < compute in task-clock"
assert r["main"]["values"][tc] >= r["setup"]["values"][tc], "main < setup in task-clock"
EOF
	); then
		ok regions-json
	else
		not_ok regions-json "$out" "$(show "$TMP/regions.json")"
	fi
fi

# ---- regions: the text dump on stderr and the program's own totals ----
if PCL_REGIONS=text example regions regions-text; then
	f=$TMP/regions-text.err
	bad=
	for r in main setup worker alloc compute; do
		grep -q "Region '$r'" "$f" || bad+=" no Region '$r' in the dump;"
	done
	grep -q "Region 'worker': 4 calls in 4 threads" "$f" || bad+=" worker not 4 calls in 4 threads;"
	grep -qE '^compute +40 +[0-9]+$' "$TMP/regions-text.out" || bad+=" no 'compute 40' total on stdout;"
	if [ -z "$bad" ]; then ok regions-text; else
		not_ok regions-text "$bad" "stdout:" "$(show "$TMP/regions-text.out")" "stderr:" "$(show "$f" 30)"
	fi
fi
