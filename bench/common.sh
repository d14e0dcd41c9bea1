# Shared by bench/report.sh and bench/export.sh (sourced, not run): the big
# recording both time, and the timer. See bench/report.sh for what the file
# is and the variables (SAMPLES, DUR, FREQ, COPIES, BENCH_DIR, RERECORD,
# PYTHON, TIMEOUT) that change it. Sets PCL, PERF, TIMER, TO, TMP; defines
# record TOOL FILE and die.
BUILD=${1:-build}
[[ "$BUILD" == /* ]] || BUILD=$PWD/$BUILD
PCL=${PCL:-$BUILD/pcl}
SAMPLES=${SAMPLES:-1000000}
MAX_DUR=${MAX_DUR:-60}
TIMEOUT=${TIMEOUT:-600}
FREQ=${FREQ:-max}
COPIES=${COPIES:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-/tmp/pcl-bench}
RERECORD=${RERECORD:-0}
# How record takes call chains (bench/unwind.sh: --call-graph dwarf).
REC_CG=${REC_CG:--g}
# CPU seconds per copy for SAMPLES samples at FREQ Hz of cpu-clock.
rate=$FREQ
[ "$FREQ" = max ] && rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 4000)
DUR=${DUR:-$(awk -v t="$SAMPLES" -v c="$COPIES" -v r="$rate" 'BEGIN { print int(t / (c * r) + 0.999) }')}

die() {
	echo "bench: $*" >&2
	exit 1
}
PERF=$(command -v perf) || die "perf not found (Debian: apt-get install linux-perf)"
# The system's python3 by default: a shim (pyenv) would add its own shell
# scripts to the profile.
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || die "python3 not found"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME)"
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

export PCL BUILD
# shellcheck source=../tests/e2e/lib.sh
. tests/e2e/lib.sh # TMP (removed on exit), perf_samples
set +u

have_pcl=0
[ -x "$PCL" ] && have_pcl=1
pcl_has() { [ $have_pcl = 1 ] && "$PCL" help 2>/dev/null | grep -qE "^[[:space:]]+$1[[:space:]]"; }

# The timer: "WALL USER SYS MAXRSS_KIB" into a file, the command's exit
# status kept. A small wait4() wrapper timing with CLOCK_MONOTONIC: the
# wall clock of a VM can jump (GNU time's %e, from gettimeofday, once said
# 1245 s for a 1 s run here). /usr/bin/time only if there is no compiler.
TIMER=()
if command -v cc >/dev/null 2>&1; then
	cat >"$TMP/rtime.c" <<'EOF'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	FILE *f;
	int st;
	pid_t p;

	if (argc < 3)
		return 127;
	clock_gettime(CLOCK_MONOTONIC, &a);
	p = fork();
	if (p == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (p < 0 || wait4(p, &st, 0, &ru) != p)
		return 127;
	clock_gettime(CLOCK_MONOTONIC, &b);
	f = fopen(argv[1], "w");
	if (f) {
		fprintf(f, "%.3f %.3f %.3f %ld\n", b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9,
			ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
EOF
	cc -O2 -o "$TMP/rtime" "$TMP/rtime.c" && TIMER=("$TMP/rtime") && timer_name="wait4(), CLOCK_MONOTONIC"
fi
if [ ${#TIMER[@]} -eq 0 ]; then
	[ -x /usr/bin/time ] || die "no compiler (cc) to build a timer, and no /usr/bin/time (Debian package 'time')"
	TIMER=(/usr/bin/time -f '%e %U %S %M' -o)
	timer_name="/usr/bin/time"
fi
# Each report gets at most TIMEOUT seconds (coreutils timeout; the timer's
# rusage covers it and the tool it waited for).
TO=()
command -v timeout >/dev/null 2>&1 && TO=(timeout "$TIMEOUT")

# The workload: python3 wl.py SECONDS COPIES forks COPIES-1 more copies of
# itself; each loops over the benchmark until it has used SECONDS of CPU.
WL=$BENCH_DIR/wl.py
cat >"$WL.new" <<'EOF'
import os, sys, time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def mandel(w, h, it=60):
    inside = 0
    for y in range(h):
        for x in range(w):
            z, c = 0j, complex(3.0 * x / w - 2.0, 2.0 * y / h - 1.0)
            for _ in range(it):
                z = z * z + c
                if abs(z) > 2.0:
                    break
            else:
                inside += 1
    return inside


def sortwork(n, seed):
    import random
    r = random.Random(seed)
    a = [r.random() for _ in range(n)]
    b = sorted(a, key=lambda v: (v * 7919.0) % 1.0)
    return sorted(a)[n // 2] + sum(b[:10])


def strings(n):
    d = {}
    for i in range(n):
        k = "k%d" % (i % 997)
        d[k] = d.get(k, "")[-40:] + str(i)
    return len("".join(sorted(d.values())))


def syscalls(n):
    t = 0
    for _ in range(n):
        t += os.stat("/").st_nlink + len(os.listdir("/proc/self/fd"))
        t += os.getpid() & 1
    return t


def level3(i):
    return fib(16 + i % 3) + mandel(30, 20)


def level2(i):
    return level3(i) + sortwork(5000, i) + strings(8000)


def level1(i):
    return level2(i) + syscalls(200)


def main():
    dur = float(sys.argv[1])
    copies = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    kids = []
    for _ in range(copies - 1):
        pid = os.fork()
        if pid == 0:
            kids = None
            break
        kids.append(pid)
    # CPU time, not wall time: cpu-clock samples follow it, so a busy
    # machine gives as many samples, only later.
    end = time.process_time() + dur
    i = 0
    while time.process_time() < end:
        level1(i)
        i += 1
    for pid in kids or []:
        os.waitpid(pid, 0)


main()
EOF
if cmp -s "$WL.new" "$WL"; then rm -f "$WL.new"; else mv -f "$WL.new" "$WL"; fi

# record TOOL FILE: FILE (and FILE.info: "SAMPLES LOST BYTES SECONDS DUR")
# from TOOL record $REC_CG on the workload, unless a good one is cached. How many
# samples DUR seconds give depends on the load; with fewer than 80% of
# SAMPLES, record once more for proportionally longer (at most MAX_DUR s).
record() {
	local tool=$1 f=$2 bin t0 t1 s=0 lost dur=$DUR try
	[ "$tool" = perf ] && bin=$PERF || bin=$PCL
	if [ "$RERECORD" != 1 ] && [ -s "$f" ] && [ -s "$f.info" ] && [ "$f.info" -nt "$f" ] && [ "$f" -nt "$WL" ]; then
		return 0
	fi
	rm -f "$f" "$f.info"
	for try in 1 2; do
		echo "bench: recording $f: $tool record $REC_CG -F $FREQ, $COPIES x $PYTHON for ${dur} CPU-s each ..." >&2
		rm -f "$f.tmp" "$f.tmp.old" # a recorder keeps an old output as .old
		t0=$EPOCHREALTIME
		# shellcheck disable=SC2086 # $REC_CG is a list of options
		if ! "$bin" record -q $REC_CG -F "$FREQ" -o "$f.tmp" -- "$PYTHON" "$WL" "$dur" "$COPIES" >"$TMP/rec.out" 2>&1; then
			echo "bench: $tool record failed:" >&2
			tail -5 "$TMP/rec.out" >&2
			rm -f "$f.tmp"
			return 1
		fi
		t1=$EPOCHREALTIME
		s=$(perf_samples "$f.tmp")
		if [ -z "$s" ] || [ "$s" -eq 0 ]; then
			echo "bench: perf report --stats finds no samples in $tool's file" >&2
			rm -f "$f.tmp"
			return 1
		fi
		[ $try = 2 ] || [ $((s * 10)) -ge $((SAMPLES * 8)) ] && break
		dur=$(awk -v d="$dur" -v s="$s" -v t="$SAMPLES" -v m="$MAX_DUR" \
			'BEGIN { n = int(d * t * 1.05 / s + 0.999); print (n > m ? m : n) }')
		echo "bench: only $s samples; again, for ${dur} CPU-s" >&2
	done
	lost=$("$PERF" report --stats -i "$f.tmp" 2>/dev/null |
		awk '$1 == "LOST" && $2 == "events:" { print $3; exit }')
	mv -f "$f.tmp" "$f"
	rm -f "$f.tmp.old"
	echo "$s ${lost:-0} $(stat -c %s "$f") $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $dur" >"$f.info"
	if [ -s "$TMP/rec.out" ]; then
		echo "bench: ($tool record said:)" >&2
		head -3 "$TMP/rec.out" | sed 's/^/    /' >&2
	fi
}

