#!/usr/bin/env bash
# pcl data convert --to-json writes what perf 6.1's perf data convert
# --to-json writes for the same perf.data file, byte for byte (perf's output
# is deterministic: captured-on is the file's mtime), for files recorded by
# perf and by pcl: frame-pointer call chains (-g), DWARF call chains (perf
# writes their recorded part), several events with a period, a tracepoint
# and a software event, per task (the "cpu" key: -1 for the event that does
# not record it) and on every CPU, a clock (-k: clockid, clock-time, real-time).
#   data-convert-pipe    a stream (perf inject -o -) read from a pipe, as
#                        perf 6.1 cannot (it crashes): the same samples as the
#                        file, and offsets 0;
#   data-convert-exists  an existing output is refused (and kept) without
#                        --force, overwritten with it;
#   data-convert-errors  --all, --to-ctf, a missing input (no output left
#                        behind), no --to-json: one-line errors.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip data-convert "perf is not installed"
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { skip data-convert "python3 is not installed"; exit 0; }
CC=${CC:-cc}
cat >"$TMP/hot.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile double sink;
__attribute__((noinline)) void leaf(int n) { double x = 0; for (int i = 0; i < n; i++) x += i * 0.5; sink = x; }
__attribute__((noinline)) void mid(int n) { char *p = malloc(1000); leaf(n); memset(p, 1, 1000); free(p); }
int main(void) { for (int i = 0; i < 2000; i++) mid(20000); printf("%f\n", sink); return 0; }
EOF
if ! $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/hot" "$TMP/hot.c" 2>"$TMP/cc.err"; then
	skip data-convert "cannot compile the workload: $(head -1 "$TMP/cc.err")"
	exit 0
fi
[ -d /sys/kernel/tracing/events/sched ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

rec() { # NAME RECORDER ARGS... (the command follows --)
	local name=$1 by=$2
	shift 2
	if ! $by record -q -o "$TMP/$name.data" "$@" >"$TMP/$name.rec" 2>&1; then
		not_ok "data-convert-record-$name" "$by record $* failed" "$(show "$TMP/$name.rec")"
		return 1
	fi
}

files=()
rec perf-g perf -g -e cpu-clock -- "$TMP/hot" && files+=(perf-g)
rec pcl-g "$PCL" -g -e cpu-clock -- "$TMP/hot" && files+=(pcl-g)
rec perf-dwarf perf --call-graph dwarf -e cpu-clock -- "$TMP/hot" && files+=(perf-dwarf)
rec pcl-period "$PCL" -e cpu-clock,task-clock -c 200000 -- "$TMP/hot" && files+=(pcl-period)
rec perf-tp-a perf -a -e sched:sched_switch -e cpu-clock -- sleep 0.2 && files+=(perf-tp-a)
rec perf-tp perf -e sched:sched_switch -e cpu-clock -- sh -c "sleep 0.1; $TMP/hot" && files+=(perf-tp)
rec pcl-tp "$PCL" -e sched:sched_switch -e cpu-clock -g -- "$TMP/hot" && files+=(pcl-tp)
rec perf-clock perf -k mono -e cpu-clock -- "$TMP/hot" && files+=(perf-clock)
# a perf stat record file: headers only
perf stat record -o "$TMP/perf-stat.data" -e task-clock -- true >/dev/null 2>&1 && files+=(perf-stat)

for f in "${files[@]}"; do
	perf data convert --to-json "$TMP/$f.perf.json" -i "$TMP/$f.data" >"$TMP/p.err" 2>&1
	"$PCL" data convert --to-json "$TMP/$f.pcl.json" -i "$TMP/$f.data" >"$TMP/q.out" 2>"$TMP/q.err"
	rc=$?
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["samples"]))' \
		"$TMP/$f.pcl.json" 2>"$TMP/py.err")
	if [ $rc -ne 0 ]; then
		not_ok "data-convert-$f" "pcl data convert: exit $rc" "$(show "$TMP/q.err")"
	elif [ -z "$n" ] || { [ "$n" -eq 0 ] && [ "$f" != perf-stat ]; }; then
		not_ok "data-convert-$f" "pcl's JSON does not parse, or has no sample" "$(show "$TMP/py.err")"
	elif ! grep -q "^\[ pcl data convert: Converted and wrote .* ($n samples) \]" "$TMP/q.err" ||
		[ -s "$TMP/q.out" ]; then
		not_ok "data-convert-$f" "the summary on stderr does not say $n samples" "$(show "$TMP/q.err")"
	elif [ ! -s "$TMP/$f.perf.json" ]; then
		not_ok "data-convert-$f" "perf data convert wrote nothing" "$(show "$TMP/p.err")"
	elif [ "$f" = perf-tp-a ] && ! cmp -s "$TMP/$f.perf.json" "$TMP/$f.pcl.json" &&
		python3 - "$TMP/$f.perf.json" "$TMP/$f.pcl.json" >"$TMP/exited.out" 2>&1 <<'PY'; then
import json, sys
# The one difference allowed (README): a sample the kernel gave pid and tid
# -1 (a task past its exit). perf names it after the first thread it met
# with tid -1, pcl after the idle task. Everything else must be equal.
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
if a["headers"] != b["headers"] or len(a["samples"]) != len(b["samples"]):
    sys.exit(1)
n = 0
for x, y in zip(a["samples"], b["samples"]):
    if x == y:
        continue
    if x["tid"] != -1 or (y["pid"], y["tid"], y["comm"]) != (0, 0, "swapper"):
        sys.exit(1)
    for k in ("pid", "tid", "comm"):
        x.pop(k)
        y.pop(k)
    if x != y:
        sys.exit(1)
    n += 1
print(n)
PY
		ok "data-convert-$f"
	else
		diff_or_ok "data-convert-$f" "$TMP/$f.perf.json" "$TMP/$f.pcl.json" "perf" "pcl"
	fi
done

# what the files must show for the comparison above to mean something
python3 - "$TMP" >"$TMP/shape.out" 2>&1 <<'EOF'
import json, sys
t = sys.argv[1]
def load(n):
    return json.load(open(f"{t}/{n}.pcl.json"))
bad = []
g = load("perf-g")["samples"]
if not any([e.get("symbol") for e in s["callchain"]][:2] == ["leaf", "main"] for s in g):
    bad.append("perf-g: no chain leaf <- main (mid's return address is lost with leaf's frame)")
tp = load("perf-tp")["samples"]
if not any(s.get("cpu", -1) >= 0 for s in tp) or not any(s.get("cpu") == -1 for s in tp):
    bad.append("perf-tp: want samples with a cpu and samples with cpu -1")
h = load("perf-clock")["headers"]
if "clockid" not in h or h["clockid"] != 1:
    bad.append("perf-clock: no clockid 1 in the headers")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
if [ $? -eq 0 ]; then ok data-convert-shape; else not_ok data-convert-shape "$(cat "$TMP/shape.out")"; fi

# a stream, from a pipe
if perf inject -i "$TMP/perf-g.data" -o - >"$TMP/pipe.data" 2>"$TMP/inject.err"; then
	cat "$TMP/pipe.data" | "$PCL" data convert --to-json "$TMP/pipe.json" 2>"$TMP/pipe.err"
	python3 - "$TMP" >"$TMP/pipe.out" 2>&1 <<'EOF'
import json, sys
t = sys.argv[1]
a = json.load(open(f"{t}/perf-g.perf.json"))
b = json.load(open(f"{t}/pipe.json"))
bad = []
if a["samples"] != b["samples"]:
    bad.append(f"samples differ: {len(a['samples'])} in the file, {len(b['samples'])} in the stream")
for k in ("data-offset", "data-size", "feat-offset"):
    if b["headers"].get(k) != 0:
        bad.append(f"{k}: {b['headers'].get(k)}, not 0")
for k in ("hostname", "os-release", "perf-version"):
    if b["headers"].get(k) != a["headers"].get(k):
        bad.append(f"{k}: {b['headers'].get(k)} vs {a['headers'].get(k)}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
	if [ $? -eq 0 ]; then ok data-convert-pipe; else not_ok data-convert-pipe "$(cat "$TMP/pipe.out")" "$(show "$TMP/pipe.err")"; fi
else
	skip data-convert-pipe "perf inject -o - failed: $(head -1 "$TMP/inject.err")"
fi

# an existing output
echo keep >"$TMP/exists.json"
"$PCL" data convert --to-json "$TMP/exists.json" -i "$TMP/pcl-g.data" >/dev/null 2>"$TMP/e.err"
rc1=$?
kept=$(cat "$TMP/exists.json")
"$PCL" data convert --force --to-json "$TMP/exists.json" -i "$TMP/pcl-g.data" >/dev/null 2>&1
rc2=$?
if [ $rc1 -ne 0 ] && [ "$kept" = keep ] && [ "$(wc -l <"$TMP/e.err")" -eq 1 ] && [ $rc2 -eq 0 ] &&
	cmp -s "$TMP/exists.json" "$TMP/pcl-g.pcl.json"; then
	ok data-convert-exists
else
	not_ok data-convert-exists "without --force: exit $rc1, file '$kept'; with: exit $rc2" "$(show "$TMP/e.err")"
fi

# errors: one line each, non-zero, no output left behind
errs=""
for args in "--all --to-json $TMP/x1.json -i $TMP/pcl-g.data" "--to-ctf $TMP/x2 -i $TMP/pcl-g.data" \
	"--to-json $TMP/x3.json -i $TMP/nonexistent.data" "-i $TMP/pcl-g.data"; do
	# shellcheck disable=SC2086
	"$PCL" data convert $args >"$TMP/x.out" 2>"$TMP/x.err"
	rc=$?
	if [ $rc -eq 0 ] || [ "$(wc -l <"$TMP/x.err")" -ne 1 ] || [ -s "$TMP/x.out" ]; then
		errs="$errs; '$args': exit $rc, $(head -2 "$TMP/x.err" | tr '\n' ' ')"
	fi
done
ls "$TMP"/x[123]* >/dev/null 2>&1 && errs="$errs; an output was left: $(ls "$TMP"/x[123]*)"
if [ -z "$errs" ]; then ok data-convert-errors; else not_ok data-convert-errors "${errs#; }"; fi
