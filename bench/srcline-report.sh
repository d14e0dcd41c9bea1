#!/usr/bin/env bash
# `report --sort srcline` (and srcfile) and inline frames, pcl against perf
# 6.1 on the same recording of a real program. Printed, not asserted; not
# part of `make check`.
#
#   bench/srcline-report.sh [BUILD]       BUILD defaults to build/
#   FILE=/path/perf.data bench/srcline-report.sh   time that file instead
#   DUR=20 FREQ=4000 bench/srcline-report.sh       a longer recording
#
# By default it records python3 (the system's; no frame pointers, no debug
# info: symbol-table answers) running a JSON/regex/sort loop, with -g, and
# libc (whose Debian debug file, libc6-dbg, gives lines when installed).
# perf's srcline runs addr2line once per distinct address (docs/srcline.md):
# the ratio grows with the number of distinct addresses, pcl's libdw
# module pays mostly the debug files' first read.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
[[ "$BUILD" == /* ]] || BUILD=$PWD/$BUILD
PCL=${PCL:-$BUILD/pcl}
DUR=${DUR:-10}
FREQ=${FREQ:-4000}
PYTHON=${PYTHON:-/usr/bin/python3}
REPEAT=${REPEAT:-3}

die() {
	echo "bench: $*" >&2
	exit 1
}
[ -x "$PCL" ] || die "'$PCL' not found; run 'make' first"
command -v perf >/dev/null || die "perf not found (Debian: apt-get install linux-perf)"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME)"
TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ -z "${FILE:-}" ]; then
	[ -x "$PYTHON" ] || die "python3 not found (PYTHON=...)"
	cat >"$TMP/work.py" <<'EOF'
import json, random, re, sys, time
end = time.time() + float(sys.argv[1])
d = {}
i = 0
while time.time() < end:
    s = json.dumps({"a": i, "b": [i, i * 2, str(i)], "c": {"x": i / 3}})
    d[i % 1000] = json.loads(s)
    re.sub(r"\d+", "x", s)
    sorted(random.random() for _ in range(20))
    i += 1
EOF
	FILE=$TMP/srcline.data
	perf record -q -e cpu-clock -F "$FREQ" -g -o "$FILE" "$PYTHON" "$TMP/work.py" "$DUR" \
		>/dev/null 2>&1 || die "perf record failed"
fi
[ -r "$FILE" ] || die "cannot read '$FILE'"
samples=$(perf report --stats -i "$FILE" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')

# best TOOL ARGS...: the best wall time of REPEAT runs, in seconds, and
# the peak RSS of that run (KiB): "SECS KIB".
best() {
	local b="" rss=0 t0 t1 dt
	for _ in $(seq "$REPEAT"); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1
		t1=$EPOCHREALTIME
		dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$b" ] || awk -v a="$dt" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$dt
			rss=$(tail -1 "$TMP/rss")
		fi
	done
	echo "$b $rss"
}

echo "srcline report: $FILE (${samples:-?} samples), best of $REPEAT"
printf '%-44s %9s %9s %8s %10s %10s\n' "report" "perf s" "pcl s" "ratio" "perf KiB" "pcl KiB"
line() {
	local what=$1
	shift
	read -r pt pm < <(best perf report --stdio -i "$FILE" "$@")
	read -r ct cm < <(best "$PCL" report --stdio -i "$FILE" "$@")
	printf '%-44s %9s %9s %7sx %10s %10s\n' "$what" "$pt" "$ct" \
		"$(awk -v a="$pt" -v b="$ct" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" "$pm" "$cm"
}
line "--no-children (no srcline: reference)" --no-children
line "--no-children --sort srcline" --no-children --sort srcline
line "--no-children --sort srcfile" --no-children --sort srcfile
line "--sort srcline (children)" --sort srcline
line "--no-children --sort dso,sym,srcline" --no-children --sort dso,sym,srcline

# What inline frames cost pcl: perf's default (expanded where perf does:
# DWARF-unwound frames), and --inline (every user frame), against none.
read -r nt _ < <(best "$PCL" report --stdio -i "$FILE" --no-inline)
read -r dt _ < <(best "$PCL" report --stdio -i "$FILE")
read -r at _ < <(best "$PCL" report --stdio -i "$FILE" --inline)
printf 'pcl report inline frames: --no-inline %ss, default %ss (%+.0f%%), --inline %ss (%+.0f%%)\n' \
	"$nt" "$dt" "$(awk -v a="$dt" -v b="$nt" 'BEGIN { print (b > 0 ? 100 * (a - b) / b : 0) }')" \
	"$at" "$(awk -v a="$at" -v b="$nt" 'BEGIN { print (b > 0 ? 100 * (a - b) / b : 0) }')"
