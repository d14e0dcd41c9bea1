#!/usr/bin/env bash
# What pcl record costs next to perf record, on a CPU-bound multi-threaded
# workload sampled as hard as the kernel allows with call chains
# (-g -F max). Printed, not asserted; not part of `make check`.
#
#   bench/record.sh [BUILD]        BUILD defaults to build/
#   ROUNDS=5 UNITS=40000 bench/record.sh
#
# The workload is tests/workloads/crunch.c (fixed work, not fixed time),
# built here with clang and leaf frame pointers, one thread per CPU. Each
# round runs it bare, under pcl record, and under perf record, in rotating
# order so drift hits all three alike; the table shows medians over the
# rounds of:
#   wall s        the workload's wall time (from the recorder's start to its
#                 end: what a user waits for)
#   slowdown      wall time / the bare run's
#   wl CPU s      the workload's own CPU time (its threads, user+sys)
#   rec CPU s     the recorder's own CPU time: everything the recorder and
#                 its children used, minus the workload's (getrusage of
#                 waited-for children, through a tiny wrapper)
#   MB            bytes of the output file
#   samples       SAMPLE records in the file, lost: records the kernel
#                 dropped (PERF_RECORD_LOST counts, or LOST_SAMPLES)
#   us/sample     rec CPU per sample captured
# Exits 1 only if pcl, perf, a compiler or python3 is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
[[ "$BUILD" == /* ]] || BUILD=$PWD/$BUILD
PCL=${PCL:-$BUILD/pcl} # PCL overrides, e.g. a wrapper
ROUNDS=${ROUNDS:-3}
NTHR=${NTHR:-$(nproc)}
UNITS=${UNITS:-4000}

die() {
	echo "bench: $*" >&2
	exit 1
}
[ -x "$PCL" ] || die "'$PCL' not found; run 'make' first"
"$PCL" help 2>/dev/null | grep -qE '^[[:space:]]+record' || die "'$PCL' has no record command"
PERF=$(command -v perf) || die "perf not found (Debian: apt-get install linux-perf)"
CLANG=$(command -v clang) || die "clang not found (scripts/deps.sh)"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME)"

export PCL BUILD
# shellcheck source=../tests/e2e/lib.sh
. tests/e2e/lib.sh # TMP (removed on exit), data_walk, walk_get
set +u

crunch=$TMP/crunch
"$CLANG" -std=gnu11 -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -o "$crunch" tests/workloads/crunch.c -lpthread || die "cannot build crunch"
# cpuwrap OUT CMD...: run CMD, wait for it, write "USER SYS" seconds of
# CPU used by CMD and every descendant it waited for to OUT; exit as CMD.
cat >"$TMP/cpuwrap.c" <<'EOF'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct rusage ru;
	FILE *f;
	int st;
	pid_t p;

	if (argc < 3)
		return 127;
	p = fork();
	if (p == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 127;
	getrusage(RUSAGE_CHILDREN, &ru);
	f = fopen(argv[1], "w");
	if (f) {
		fprintf(f, "%.6f %.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
EOF
cc -O2 -o "$TMP/cpuwrap" "$TMP/cpuwrap.c" || die "cannot build the CPU-time wrapper"
W=$TMP/cpuwrap
for t in "$PCL" "$PERF"; do
	"$t" record -q -o "$TMP/probe.data" -- true >/dev/null 2>&1 || {
		"$t" record -o "$TMP/probe.data" -- true 2>&1 | tail -5 >&2
		die "'$t record -- true' fails"
	}
done

# one KIND ROUND: one run; appends "wall wlcpu reccpu bytes samples lost"
# to $TMP/KIND.res
one() {
	local kind=$1 r=$2 f=$TMP/$1-$2.data t0 t1 wl tot walk
	rm -f "$f" "$TMP/wl.cpu" "$TMP/tot.cpu"
	t0=$EPOCHREALTIME
	case $kind in
	bare) "$W" "$TMP/wl.cpu" "$crunch" "$NTHR" "$UNITS" ;;
	pcl) "$W" "$TMP/tot.cpu" "$PCL" record -q -g -F max -o "$f" -- "$W" "$TMP/wl.cpu" "$crunch" "$NTHR" "$UNITS" ;;
	perf) "$W" "$TMP/tot.cpu" "$PERF" record -q -g -F max -o "$f" -- "$W" "$TMP/wl.cpu" "$crunch" "$NTHR" "$UNITS" ;;
	esac >/dev/null 2>"$TMP/$kind.err"
	t1=$EPOCHREALTIME
	wl=$(awk '{ print $1 + $2 }' "$TMP/wl.cpu" 2>/dev/null)
	if [ "$kind" = bare ]; then
		echo "$t0 $t1 $wl 0 0 0 0" | awk '{ print $2 - $1, $3, 0, 0, 0, 0 }' >>"$TMP/$kind.res"
		return
	fi
	tot=$(awk '{ print $1 + $2 }' "$TMP/tot.cpu" 2>/dev/null)
	walk=$(data_walk "$f")
	local lost ls
	lost=$(walk_get "$walk" lost)
	ls=$(walk_get "$walk" lost_samples)
	[ "${ls:-0}" -gt "${lost:-0}" ] && lost=$ls
	echo "$t0 $t1 ${wl:-0} ${tot:-0} $(stat -c %s "$f" 2>/dev/null || echo 0) $(walk_get "$walk" samples) ${lost:-0}" |
		awk '{ print $2 - $1, $3, $4 - $3, $5, $6, $7 }' >>"$TMP/$kind.res"
	rm -f "$f"
}

echo "bench: crunch $NTHR threads x $UNITS units, -g -F max ($(cat /proc/sys/kernel/perf_event_max_sample_rate) Hz)," \
	"$ROUNDS rounds; $(nproc) CPUs" >&2
kinds=(bare pcl perf)
for r in $(seq "$ROUNDS"); do
	for i in 0 1 2; do
		one "${kinds[$(((r + i) % 3))]}" "$r"
	done
	printf '.' >&2
done
echo >&2

# median FILE COLUMN
median() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bare=$(median "$TMP/bare.res" 1)
printf '%-22s %8s %9s %9s %10s %9s %9s %9s %10s\n' "" "wall s" slowdown "wl CPU s" "rec CPU s" MB samples lost "us/sample"
for k in bare pcl perf; do
	case $k in
	bare) label="bare" ;;
	pcl) label="pcl record -g -F max" ;;
	perf) label="perf record -g -F max" ;;
	esac
	w=$(median "$TMP/$k.res" 1)
	awk -v l="$label" -v w="$w" -v b="$bare" -v c="$(median "$TMP/$k.res" 2)" -v rc="$(median "$TMP/$k.res" 3)" \
		-v by="$(median "$TMP/$k.res" 4)" -v s="$(median "$TMP/$k.res" 5)" -v lo="$(median "$TMP/$k.res" 6)" -v k="$k" '
		BEGIN {
			if (k == "bare") { printf "%-22s %8.3f %8.2fx %9.3f %10s %9s %9s %9s %10s\n", l, w, 1, c, "-", "-", "-", "-", "-"; exit }
			printf "%-22s %8.3f %8.2fx %9.3f %10.3f %9.2f %9d %9d %10.2f\n", l, w, w / b, c, rc, by / 1048576, s, lo,
				(s > 0 ? rc * 1e6 / s : 0) }'
done
for k in pcl perf; do
	if [ -s "$TMP/$k.err" ]; then
		echo "($k wrote on stderr in its last run:)"
		head -5 "$TMP/$k.err"
	fi
done
exit 0
