#!/usr/bin/env bash
# pcl lock against perf lock on the same recording: wall time of
# `lock contention` (and of report, -t), each the best of REPEAT runs, on
# a perf lock record of pcl bench sched messaging (NGROUPS groups); and the
# wall time of recording that workload with each. Printed as ratios
# against perf, not asserted; not part of `make check`.
#
#   bench/lock.sh [BUILD]             BUILD defaults to build/
#   REPEAT=5 NGROUPS=10 bench/lock.sh
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
REPEAT=${REPEAT:-5}
NGROUPS=${NGROUPS:-10}
PCL=$BUILD/pcl
command -v perf >/dev/null || { echo "bench: perf not found" >&2; exit 1; }
[ -x "$PCL" ] || { echo "bench: run 'make' first" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench: needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export HOME=$TMP

best() { # CMD...: the best wall time of REPEAT runs, in seconds
	local b= t0 t
	for _ in $(seq "$REPEAT"); do
		t0=$EPOCHREALTIME
		"$@" >/dev/null 2>&1
		t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$t; fi
	done
	echo "$b"
}
row() { # LABEL PCL_SECONDS PERF_SECONDS
	awk -v l="$1" -v p="$2" -v q="$3" 'BEGIN { printf "%-28s pcl %8.3f s   perf %8.3f s   %6.1fx faster\n", l, p, q, (p > 0 ? q / p : 0) }'
}

load=("$PCL" bench sched messaging -g "$NGROUPS")
perf lock record -o "$TMP/perf.data" -- "${load[@]}" >/dev/null 2>&1 ||
	{ echo "bench: perf lock record failed" >&2; exit 1; }
n=$(perf script -i "$TMP/perf.data" -F event 2>/dev/null | grep -c contention)
echo "lock events: $n (sched messaging, $NGROUPS groups)"
row "lock contention" "$(best "$PCL" lock contention -i "$TMP/perf.data")" \
	"$(best perf lock contention -i "$TMP/perf.data")"
row "lock contention -t" "$(best "$PCL" lock contention -t -i "$TMP/perf.data")" \
	"$(best perf lock contention -t -i "$TMP/perf.data")"
row "lock report" "$(best "$PCL" lock report -i "$TMP/perf.data")" \
	"$(best perf lock report -i "$TMP/perf.data")"
row "lock record (workload)" "$(best "$PCL" lock record -o "$TMP/pcl.data" -- "${load[@]}")" \
	"$(best perf lock record -o "$TMP/perf2.data" -- "${load[@]}")"
