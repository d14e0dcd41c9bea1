#!/usr/bin/env bash
# How fast pcl report reads a big perf.data next to perf report, and how much
# memory it takes. Printed, not asserted; not part of `make check`. The aim:
# at least 10 times faster than perf report --stdio, with no more memory.
#
#   bench/report.sh [BUILD]        BUILD defaults to build/
#   N=1 bench/report.sh            one timed run per case (default best of 3)
#   RERECORD=1 bench/report.sh     record the big files again
#
# The files: python3 (/usr/bin/python3, not a pyenv shim) running a
# pure-Python CPU benchmark (nested calls, complex arithmetic, sorting with a
# key, dicts and strings, a few system calls), one copy per CPU, sampled with
# call chains at the highest frequency the kernel allows (-g -F max) until
# each copy has used DUR seconds of CPU, by default what gives SAMPLES
# (default 1000000) samples at that frequency (5 s at 100000 Hz with 2 CPUs):
# if the file holds fewer than 80% of SAMPLES, it records once more for
# longer (at most MAX_DUR, 60 s). One file is recorded by perf record, one
# by pcl record (if it works); both are kept in $BENCH_DIR (default
# /tmp/pcl-bench, about 300 MB) and reused by later runs unless RERECORD=1
# (or the workload script changed).
# Sample counts come from perf report --stats.
#
# Each file is reported in the default (children) mode and with
# --no-children, by perf report --stdio and pcl report --stdio, N rounds
# with the two tools in alternating order; the table shows the round with
# the lowest wall time:
#   wall s      elapsed time
#   cpu s       user + system CPU time
#   peak MiB    peak resident set (maxrss; counts the file's pages a tool
#               maps and touches, as the kernel does)
#   lines       lines of report written (output goes to a file, not
#               /dev/null, so that a fast but empty report shows)
# and, per case, perf/pcl for time (the speed-up; above 10 is the aim) and
# pcl/perf for memory (at most 1 is the aim). Times and peak memory come
# from a small wait4() wrapper built here (or /usr/bin/time without a
# compiler); a report taking over TIMEOUT (600) s is stopped and shows as
# failed. If pcl has no report command yet, only perf is timed.
# PYTHON, DUR, SAMPLES, COPIES (default: one per CPU) and FREQ change the
# recording.
# Exits 1 only if perf or python3 is missing or no file can be recorded.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
[[ "$BUILD" == /* ]] || BUILD=$PWD/$BUILD
PCL=${PCL:-$BUILD/pcl}
N=${N:-3}
SAMPLES=${SAMPLES:-1000000}
MAX_DUR=${MAX_DUR:-60}
TIMEOUT=${TIMEOUT:-600}
FREQ=${FREQ:-max}
COPIES=${COPIES:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-/tmp/pcl-bench}
RERECORD=${RERECORD:-0}
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
# from TOOL record -g on the workload, unless a good one is cached. How many
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
		echo "bench: recording $f: $tool record -g -F $FREQ, $COPIES x $PYTHON for ${dur} CPU-s each ..." >&2
		rm -f "$f.tmp" "$f.tmp.old" # a recorder keeps an old output as .old
		t0=$EPOCHREALTIME
		if ! "$bin" record -q -g -F "$FREQ" -o "$f.tmp" -- "$PYTHON" "$WL" "$dur" "$COPIES" >"$TMP/rec.out" 2>&1; then
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

files=()
record perf "$BENCH_DIR/perf-g.data" && files+=(perf-g)
if pcl_has record; then
	record pcl "$BENCH_DIR/pcl-g.data" && files+=(pcl-g)
else
	echo "bench: '$PCL' has no record command; only perf's file is used" >&2
fi
[ ${#files[@]} -gt 0 ] || die "no file to report on"

tools=(perf)
pcl_note=""
if ! pcl_has report; then
	if [ $have_pcl = 0 ]; then
		pcl_note="'$PCL' not found (run 'make'): only perf report is timed"
	else
		pcl_note="'$PCL' has no report command yet: only perf report is timed"
	fi
else
	tools+=(pcl)
fi
[ -n "$pcl_note" ] && echo "bench: $pcl_note" >&2

# run TOOL FILE MODE ROUND: one timed report; appends
# "WALL CPU MAXRSS_KIB LINES STATUS" to $TMP/FILE.MODE.TOOL.res
run() {
	local tool=$1 file=$2 mode=$3 bin st lines
	local -a opt=()
	[ "$tool" = perf ] && bin=$PERF || bin=$PCL
	[ "$mode" = no-children ] && opt=(--no-children)
	rm -f "$TMP/t.out"
	"${TIMER[@]}" "$TMP/t.out" "${TO[@]}" "$bin" report --stdio "${opt[@]}" -i "$BENCH_DIR/$file.data" \
		>"$TMP/report.out" 2>"$TMP/report.err"
	st=$?
	lines=$(wc -l <"$TMP/report.out")
	if [ $st -ne 0 ]; then
		cp "$TMP/report.err" "$TMP/$file.$mode.$tool.err"
	fi
	# The sample-count line of the header, to see both tools read the same file.
	grep -m1 '^# Samples' "$TMP/report.out" >"$TMP/$file.$mode.$tool.head" 2>/dev/null
	# /usr/bin/time adds "Command exited with non-zero status N" first.
	tail -1 "$TMP/t.out" 2>/dev/null | awk -v l="$lines" -v s="$st" \
		'NF == 4 { printf "%s %.2f %s %s %s\n", $1, $2 + $3, $4, l, s; ok = 1 }
		 END { if (!ok) printf "0 0 0 %s %s\n", l, s }' >>"$TMP/$file.$mode.$tool.res"
}

pv=$("$PCL" --version 2>/dev/null | head -1)
echo "pcl report vs perf report --stdio: ${pv:-pcl not built}, $("$PERF" --version 2>/dev/null | head -1)"
echo "$(uname -sr), $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 " MiB" }') RAM; timer: $timer_name; best of N=$N"
for file in "${files[@]}"; do
	cat "$BENCH_DIR/$file.data" >/dev/null # in the page cache for everyone
	for mode in children no-children; do
		for tool in "${tools[@]}"; do : >"$TMP/$file.$mode.$tool.res"; done
		printf 'bench: %s, %s: ' "$file" "$mode" >&2
		for ((r = 0; r < N; r++)); do
			for ((k = 0; k < ${#tools[@]}; k++)); do
				tool=${tools[(r + k) % ${#tools[@]}]}
				run "$tool" "$file" "$mode"
				printf '%s ' "$tool" >&2
			done
		done
		echo >&2
	done
done

# best FILE: the line of the round with the lowest wall time among those
# that exited 0 (or the last line if none did)
best() { awk '$5 == 0 && (!n++ || $1 < w) { w = $1; b = $0 } { l = $0 } END { print (n ? b : l) }' "$1"; }

for file in "${files[@]}"; do
	read -r s lost bytes secs dur <"$BENCH_DIR/$file.data.info"
	echo
	printf '%s: %s record -g -F %s, %s x python3 for %s CPU-s each (%s s wall): %s samples, %s LOST records, %.1f MiB\n' \
		"$BENCH_DIR/$file.data" "${file%-g}" "$FREQ" "$COPIES" "${dur:-?}" "$secs" "$s" "$lost" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')"
	printf '  %-12s %-5s %8s %8s %9s %8s  %s\n' mode tool "wall s" "cpu s" "peak MiB" lines "header"
	for mode in children no-children; do
		for tool in "${tools[@]}"; do
			read -r w c m l st < <(best "$TMP/$file.$mode.$tool.res")
			eval "${tool}_w=\$w ${tool}_c=\$c ${tool}_m=\$m ${tool}_st=\$st"
			hdr=$(sed 's/^# //' "$TMP/$file.$mode.$tool.head" 2>/dev/null)
			if [ "$st" != 0 ]; then
				[ "$st" = 124 ] && st="124, timed out after ${TIMEOUT}s"
				printf '  %-12s %-5s %8s %8s %9s %8s  FAILED (exit %s): %s\n' "$mode" "$tool" - - - "$l" "$st" \
					"$(grep -v '^$' "$TMP/$file.$mode.$tool.err" 2>/dev/null | head -1 | cut -c1-80)"
				continue
			fi
			printf '  %-12s %-5s %8.2f %8.2f %9.1f %8d  %s\n' "$mode" "$tool" "$w" "$c" \
				"$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$l" "$hdr"
		done
		# shellcheck disable=SC2154 # set through eval above
		if [ ${#tools[@]} -eq 2 ] && [ "$perf_st" = 0 ] && [ "$pcl_st" = 0 ]; then
			awk -v pw="$perf_w" -v cw="$pcl_w" -v pc="$perf_c" -v cc="$pcl_c" -v pm="$perf_m" -v cm="$pcl_m" 'BEGIN {
				t = cw > 0 ? pw / cw : 0; c = cc > 0 ? pc / cc : 0; m = pm > 0 ? cm / pm : 0
				printf "  %-12s perf/pcl time %.1fx (cpu %.1fx)%s, pcl/perf memory %.2fx%s\n", "", t, c,
					(t >= 10 ? "" : " [aim: >= 10x]"), m, (m <= 1 ? "" : " [aim: <= 1x]") }'
		fi
	done
done
[ -n "$pcl_note" ] && echo && echo "($pcl_note)"
exit 0
