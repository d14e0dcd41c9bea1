#!/usr/bin/env bash
# How much pcl stat costs next to perf stat. Printed, not asserted; not part
# of `make check`. `make bench` runs it on build/.
#
#   bench/stat.sh [BUILD]          BUILD defaults to build/
#   N=500 N_FORK=30 bench/stat.sh  more iterations
#
# Cases, each run as bare command, under pcl stat, and under perf stat, the
# three interleaved in rotating order so drift (frequency, cache, noise)
# hits them alike:
#   true           N times: start-up and tear-down cost of the tool itself
#   true -e        N times, one software event (task-clock): less set-up
#   fork loop      N_FORK times: sh running /bin/true 300 times, so every
#                  fork inherits the counters (the cost of inheritance)
# Wall time per run, in microseconds, from bash's $EPOCHREALTIME (no fork
# for the clock). The table shows medians and means; "start-up" is the
# median under the tool minus the bare median. Exits 1 only if pcl or perf
# is missing or cannot run.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
PCL=$BUILD/pcl
N=${N:-200}
N_FORK=${N_FORK:-20}
# shellcheck disable=SC2016 # expanded by the sh being measured
FORK_LOOP='for i in $(seq 300); do /bin/true; done'

if [ ! -x "$PCL" ]; then
	echo "bench: '$PCL' not found; run 'make' first" >&2
	exit 1
fi
PERF=$(command -v perf) || {
	echo "bench: perf not found (Debian: apt-get install linux-perf)" >&2
	exit 1
}
TRUE=$(command -v true)
[ "$TRUE" = true ] && TRUE=/bin/true # a builtin: time the program, not bash
[ -x "$TRUE" ] || TRUE=/bin/true
if [ -z "${EPOCHREALTIME:-}" ]; then
	echo "bench: needs bash 5 (\$EPOCHREALTIME)" >&2
	exit 1
fi
for t in "$PCL" "$PERF"; do
	if ! "$t" stat -- "$TRUE" >/dev/null 2>&1; then
		echo "bench: '$t stat -- $TRUE' fails:" >&2
		"$t" stat -- "$TRUE" 2>&1 | tail -5 >&2
		exit 1
	fi
done

TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# time_one FILE CMD...: append the run's wall time (us) to FILE
time_one() {
	local out=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1
	t1=$EPOCHREALTIME
	echo $((${t1/[.,]/} - ${t0/[.,]/})) >>"$out"
}

# bench_case NAME ITER CMD...: bare, pcl and perf interleaved, ITER rounds;
# the stat options come from the array EV.
bench_case() {
	local name=$1 iter=$2 i k f
	shift 2
	local -a order=(bare pcl perf)
	for f in bare pcl perf; do : >"$TMP/$name.$f"; done
	printf '  %-10s %4d rounds ... ' "$name" "$iter" >&2
	for ((i = 0; i < iter; i++)); do
		for ((k = 0; k < 3; k++)); do
			case ${order[(i + k) % 3]} in
			bare) time_one "$TMP/$name.bare" "$@" ;;
			pcl) time_one "$TMP/$name.pcl" "$PCL" stat "${EV[@]}" -- "$@" ;;
			perf) time_one "$TMP/$name.perf" "$PERF" stat "${EV[@]}" -- "$@" ;;
			esac
		done
	done
	echo "done" >&2
}

# median and mean of a file of numbers, in ms with 3 decimals
stats() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		      printf "%.3f %.3f\n", m / 1000, s / NR / 1000 }'
}

echo "pcl stat vs perf stat: $("$PCL" --version 2>/dev/null | head -1), $("$PERF" --version 2>/dev/null | head -1)"
echo "$(uname -sr), $(nproc) CPUs, $(id -un), perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
echo "running (interleaved; N=$N, N_FORK=$N_FORK):" >&2
EV=()
bench_case true "$N" "$TRUE"
EV=(-e task-clock)
bench_case true-e "$N" "$TRUE"
EV=()
bench_case fork-loop "$N_FORK" sh -c "$FORK_LOOP"

echo
printf '%-11s %-20s %-20s %-20s %s\n' "" "bare" "pcl stat" "perf stat" "pcl/perf"
printf '%-11s %-20s %-20s %-20s %s\n' "case" "median  mean (ms)" "median  mean (ms)" "median  mean (ms)" "(median)"
for c in true true-e fork-loop; do
	read -r bm ba < <(stats "$TMP/$c.bare")
	read -r pm pa < <(stats "$TMP/$c.pcl")
	read -r fm fa < <(stats "$TMP/$c.perf")
	ratio=$(awk -v a="$pm" -v b="$fm" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')
	printf '%-11s %8s %9s   %8s %9s   %8s %9s   %s\n' "$c" "$bm" "$ba" "$pm" "$pa" "$fm" "$fa" "$ratio"
done
read -r bm _ < <(stats "$TMP/true.bare")
read -r pm _ < <(stats "$TMP/true.pcl")
read -r fm _ < <(stats "$TMP/true.perf")
read -r bfm _ < <(stats "$TMP/fork-loop.bare")
read -r pfm _ < <(stats "$TMP/fork-loop.pcl")
read -r ffm _ < <(stats "$TMP/fork-loop.perf")
echo
awk -v b="$bm" -v p="$pm" -v f="$fm" 'BEGIN {
	printf "start-up + tear-down (stat -- true minus bare true, medians): pcl %.3f ms, perf %.3f ms", p - b, f - b
	if (f - b > 0) printf " (pcl/perf %.2fx)", ((p - b) / (f - b))
	printf "\n" }'
awk -v b="$bfm" -v p="$pfm" -v f="$ffm" 'BEGIN {
	printf "counting 300 forks (fork loop minus bare, medians): pcl %+.3f ms, perf %+.3f ms\n", p - b, f - b }'
echo "(wall time per run; lower is better. Re-run with larger N for tighter numbers.)"
exit 0
