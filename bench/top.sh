#!/bin/bash
# bench/top.sh [BUILD]: the CPU time pcl top costs against perf top, at the
# same rate, on the same target, for the same time, in one run.
#
# One busy process per CPU (tests/workloads/hot.c) makes the samples; then
# perf top --stdio and pcl top --stdio each run alone for DUR seconds (-a,
# -e cpu-clock, -F FREQ, -d 1, with and without -g), their listing thrown
# away, their standard input a pipe that stays silent (so that neither
# reads keys from a closed one). Their CPU time is utime + stime of the
# whole process (every thread) from /proc/PID/stat just before SIGINT.
# Prints one line per case and the ratio pcl/perf (below 1: pcl is
# cheaper).
#
# Variables: DUR (seconds, default 20), FREQ (Hz, default 4000).
set -u
BUILD=${1:-build}
[[ "$BUILD" == /* ]] || BUILD=$PWD/$BUILD
PCL=${PCL:-$BUILD/pcl}
DUR=${DUR:-20}
FREQ=${FREQ:-4000}
PERF=$(command -v perf) || {
	echo "bench: perf not found (Debian: apt-get install linux-perf)" >&2
	exit 1
}
[ -x "$PCL" ] || {
	echo "bench: $PCL not built (make)" >&2
	exit 1
}
HOT=$BUILD/tests/workloads/hot
[ -x "$HOT" ] || {
	echo "bench: $HOT not built (make tests)" >&2
	exit 1
}
TMP=$(mktemp -d /tmp/pcl-bench-top.XXXXXX)
HZ=$(getconf CLK_TCK)
pids=()
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
for ((i = 0; i < $(nproc); i++)); do
	"$HOT" $(((DUR * 4 + 10) * 1000)) &
	pids+=($!)
done

# cpu_of TOOL ARGS...: run TOOL top ARGS for DUR seconds; print its CPU seconds
cpu_of() {
	local tool=$1
	shift
	mkfifo "$TMP/in"
	"$tool" top --stdio "$@" <"$TMP/in" >/dev/null 2>"$TMP/err" &
	local pid=$!
	exec 9>"$TMP/in" # a writer that never writes: the tool's stdin stays open and silent
	sleep "$DUR"
	local t
	t=$(awk -v hz="$HZ" '{ print ($14 + $15) / hz }' "/proc/$pid/stat" 2>/dev/null)
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	exec 9>&-
	rm -f "$TMP/in"
	echo "${t:-nan}"
}

printf '%-28s %10s %10s %8s\n' "case ($DUR s, $FREQ Hz)" "perf CPU s" "pcl CPU s" "pcl/perf"
for g in "" "-g"; do
	args=(-a -e cpu-clock -F "$FREQ" -d 1 $g)
	perf_s=$(cpu_of "$PERF" "${args[@]}")
	pcl_s=$(cpu_of "$PCL" "${args[@]}")
	ratio=$(awk -v a="$pcl_s" -v b="$perf_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
	printf '%-28s %10s %10s %8s\n' "top --stdio ${args[*]}" "$perf_s" "$pcl_s" "$ratio"
done
