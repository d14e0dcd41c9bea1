#!/usr/bin/env bash
# What tracing syscalls costs the traced program: a loop of N getppid()
# (default 1,000,000) run plain, under strace -f, under perf trace and under
# pcl trace (all three writing their lines to /dev/null), and under the
# summary modes (strace -c, perf trace -s, pcl trace -s). Printed, not
# asserted; not part of `make check`.
#
#   bench/trace.sh [BUILD]      BUILD defaults to build/
#   N=200000 R=5 bench/trace.sh
#
# Each case runs R times (default 3), the cases interleaved in rotating
# order so that drift hits them alike; the table shows the median wall
# time, the slowdown against the plain run, and pcl's time over perf's and
# strace's. A tracer that lost events says so in its own output; the
# "lost" column shows the events pcl reported lost, and whether perf said
# it lost any ("LOST").
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
PCL=$BUILD/pcl
N=${N:-1000000}
R=${R:-3}
[ -x "$PCL" ] || { echo "bench: '$PCL' not found; run 'make' first" >&2; exit 1; }
PERF=$(command -v perf) || { echo "bench: perf not found (Debian: linux-perf)" >&2; exit 1; }
STRACE=$(command -v strace) || { echo "bench: strace not found (Debian: strace)" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench: needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/pcl-bench-trace.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/loop.c" <<'C'
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
C
cc -O2 -o "$TMP/loop" "$TMP/loop.c" || exit 1
LOOP="$TMP/loop $N"

names=(plain strace perf-trace pcl-trace strace-c perf-trace-s pcl-trace-s)
cmd() {
	case $1 in
	plain) $LOOP ;;
	strace) "$STRACE" -f -o /dev/null $LOOP ;;
	perf-trace) "$PERF" trace -o /dev/null -- $LOOP ;;
	pcl-trace) "$PCL" trace -o /dev/null -- $LOOP ;;
	strace-c) "$STRACE" -f -c -o /dev/null $LOOP ;;
	perf-trace-s) "$PERF" trace -s -o /dev/null -- $LOOP ;;
	pcl-trace-s) "$PCL" trace -s -o /dev/null -- $LOOP ;;
	esac
}
declare -A times lost
for ((r = 0; r < R; r++)); do
	for ((i = 0; i < ${#names[@]}; i++)); do
		c=${names[(i + r) % ${#names[@]}]}
		t0=$EPOCHREALTIME
		cmd "$c" >/dev/null 2>"$TMP/err"
		t1=$EPOCHREALTIME
		times[$c]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') "
		l=$(sed -n 's/^pcl: warning: lost \([0-9]*\) events.*/\1/p' "$TMP/err")
		grep -qi 'lost' "$TMP/err" && [ -z "$l" ] && l=LOST
		[ -n "$l" ] && lost[$c]=$l
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A med
for c in "${names[@]}"; do med[$c]=$(median <<<"${times[$c]}"); done
printf '%d getppid() calls, median of %d runs\n\n' "$N" "$R"
printf '%-14s %10s %10s %8s\n' case "wall (s)" slowdown lost
for c in "${names[@]}"; do
	printf '%-14s %10.3f %9.1fx %8s\n' "$c" "${med[$c]}" \
		"$(awk -v a="${med[$c]}" -v b="${med[plain]}" 'BEGIN { print a / b }')" "${lost[$c]:-0}"
done
ratio() { awk -v a="${med[$1]}" -v b="${med[$2]}" 'BEGIN { printf "%.2f", a / b }'; }
printf '\npcl trace / perf trace: %s   pcl trace / strace: %s\n' "$(ratio pcl-trace perf-trace)" "$(ratio pcl-trace strace)"
printf 'pcl trace -s / perf trace -s: %s   pcl trace -s / strace -c: %s\n' \
	"$(ratio pcl-trace-s perf-trace-s)" "$(ratio pcl-trace-s strace-c)"
