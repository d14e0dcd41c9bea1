#!/usr/bin/env bash
# pcl annotate against perf annotate --stdio on one recording: wall time of
# annotating every function with samples, and of the hottest alone, each
# the best of REPEAT runs. Printed as ratios against perf, not asserted;
# not part of `make check`.
#
#   bench/annotate.sh [BUILD]         BUILD defaults to build/
#   REPEAT=5 MS=2000 bench/annotate.sh
#
# The recording: perf record -e cpu-clock of tests/workloads/hot for MS
# milliseconds (its functions, the kernel's, libc's and the loader's).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
REPEAT=${REPEAT:-5}
MS=${MS:-2000}
PCL=$BUILD/pcl
HOT=$BUILD/tests/workloads/hot
command -v perf >/dev/null || { echo "bench: perf not found" >&2; exit 1; }
[ -x "$PCL" ] && [ -x "$HOT" ] || { echo "bench: run 'make tests' first" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench: needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
perf record -q -e cpu-clock -o "$TMP/perf.data" "$HOT" "$MS" >/dev/null 2>&1 ||
	{ echo "bench: perf record failed" >&2; exit 1; }

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
samples=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "annotate: ${samples:-?} samples of hot ($MS ms), best of $REPEAT"
row "every function" "$(best "$PCL" annotate -i "$TMP/perf.data")" \
	"$(best perf annotate --stdio -i "$TMP/perf.data")"
row "hot_leaf" "$(best "$PCL" annotate -i "$TMP/perf.data" hot_leaf)" \
	"$(best perf annotate --stdio -i "$TMP/perf.data" hot_leaf)"
