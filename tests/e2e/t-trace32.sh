#!/usr/bin/env bash
# pcl trace of 32-bit (i386) programs: the raw_syscalls tracepoints give a
# call's number in its process's ABI, and i386 numbers are not x86-64's
# (getppid is 64 there, 110 here; 4 is write there, stat here). The
# syscalls workload built with gcc -m32 makes a known number of known
# calls: their names and counts must be exact, in lines, in -s and through
# -e, and agree with strace's (which decodes 32-bit processes right); a
# 64-bit build of the same program still traces as before, and a 64-bit
# shell starting both names each one's calls by its own table.
. "$(dirname "$0")/lib.sh"

if ! "$PCL" trace -e getppid -- true >/dev/null 2>"$TMP/probe.err"; then
	skip trace32 "pcl trace cannot run here: $(head -1 "$TMP/probe.err")"
	exit 0
fi
if ! P32=$(workload syscalls -m32 2>"$TMP/cc32.err"); then
	skip trace32 "gcc -m32 cannot build a program (gcc-multilib missing?): $(head -1 "$TMP/cc32.err")"
	exit 0
fi
P64=$(workload syscalls)
# the ELF class byte: 1 is 32-bit
if [ "$(od -An -tu1 -j4 -N1 "$P32" | tr -d ' ')" != 1 ]; then
	not_ok trace32-build "$P32 is not a 32-bit ELF file:" "$(file "$P32" 2>&1)"
	exit 0
fi
cp "$P32" "$TMP/prog32"
cp "$P64" "$TMP/prog64"
# a path in a read-only file mapping is read from the file only if the file
# is older than the call by a second (trace-mem.c); the 32-bit build is new
sleep 1.1
N=17

# names FILE: the syscall of each line of pcl trace's output, in order
names() {
	sed -nE 's/^.*\): ([^ ]+\/[0-9]+ )?( \.\.\. \[continued\]: )?([a-z_0-9]+)\(.*/\3/p' "$1"
}
# strace_names FILE: the same from strace's output
strace_names() {
	sed -nE 's/^([0-9]+ +)?([a-z_0-9]+)\(.*/\2/p' "$1"
}
# summary_rows FILE: "TID NAME CALLS ERRORS" for each row of a -s summary.
summary_rows() {
	awk '/^ .* \([0-9]+\), [0-9]+ events/ { tid = $0; sub(/.*\(/, "", tid); sub(/\).*/, "", tid) }
	     /^   [a-z_0-9]+ +[0-9]+ +[0-9]+ / && tid != "" { print tid, $1, $2, $3 }' "$1"
}
# by_name: "NAME CALLS ERRORS" rows summed by name (strace -c prints one
# table per ABI, pcl one per thread), sorted. Without the fork family: pcl
# counts a child's return from vfork too, as perf trace does, strace not.
by_name() {
	awk '$1 !~ /^(v?fork|clone3?)$/ { c[$1] += $2; e[$1] += $3 } END { for (n in c) print n, c[n], e[n] }' | sort
}
strace_rows() {
	awk '$NF != "total" && $NF != "syscall" && $1 ~ /^[0-9.]+$/ { e = (NF == 6) ? $5 : 0; print $NF, $4, e }' "$1" | by_name
}
pcl_rows() {
	summary_rows "$1" | awk '{ print $2, $3, $4 }' | by_name
}

# ---- -e by name selects the i386 numbers of a 32-bit process ----
sel=getppid,write,openat,exit_group
run lines "$PCL" trace -e $sel -- "$P32" calls $N
got="getppid $(grep -c ' getppid() *= [0-9]' "$TMP/lines.err")"
for i in 1 2 3 4 5; do
	got="$got, write$i $(grep -c "write(fd: 3, buf: 0x[0-9a-f]*, count: $i) *= $i\$" "$TMP/lines.err")"
done
got="$got, missing $(grep -c 'openat(dfd: CWD, filename: "/nonexistent/pcl-trace-missing", flags: RDONLY) *= -1 ENOENT' "$TMP/lines.err")"
got="$got, exit_group $(grep -c ' exit_group() *= ?$' "$TMP/lines.err")"
others=$(names "$TMP/lines.err" | grep -vxE 'getppid|write|openat|exit_group' | sort | uniq -c)
want="getppid $N, write1 1, write2 1, write3 1, write4 1, write5 1, missing 1, exit_group 1"
if [ "$RC" = 0 ] && [ "$got" = "$want" ] && [ -z "$others" ] && ! grep -q '^pcl:' "$TMP/lines.err"; then
	ok trace32-lines
else
	not_ok trace32-lines "-e $sel of a 32-bit program: want $want and no other call; got $got (rc $RC)" \
		"other calls: $others" "$(show "$TMP/lines.err" 40)"
fi

# a call with no 64-bit twin (mmap2) prints its raw arguments in hex, not
# decoded with a format that is not its own
run mmap2 "$PCL" trace -e mmap2 -- "$P32" calls 1
if [ "$RC" = 0 ] && grep -q ' mmap2(arg1: 0x[0-9a-f]*, ' "$TMP/mmap2.err" &&
	! grep -E ' mmap2\(' "$TMP/mmap2.err" | grep -qE 'arg[0-9]: [0-9]+[,)]|= [0-9]+$'; then
	ok trace32-raw-hex
else
	not_ok trace32-raw-hex "want mmap2(arg1: 0x..., ...) = 0x... lines:" "$(show "$TMP/mmap2.err")"
fi

# ---- -s: exact counts, and strace -f -c's ----
run sum "$PCL" trace -s -- "$P32" calls $N
summary_rows "$TMP/sum.err" >"$TMP/sum.rows"
if [ "$RC" = 0 ] && grep -qx "[0-9]* getppid $N 0" "$TMP/sum.rows" && grep -qx "[0-9]* write 5 0" "$TMP/sum.rows" &&
	grep -qx "[0-9]* openat [0-9]* 1" "$TMP/sum.rows" && grep -qx "[0-9]* execve 1 0" "$TMP/sum.rows" &&
	! grep -q '^pcl:' "$TMP/sum.err"; then
	ok trace32-summary
else
	not_ok trace32-summary "want getppid $N 0, write 5 0, openat with 1 error, execve 1 0 in the -s table:" "$(show "$TMP/sum.err" 40)"
fi

if command -v strace >/dev/null; then
	strace -f -c -o "$TMP/strace.c" "$P32" calls $N >/dev/null
	strace_rows "$TMP/strace.c" >"$TMP/strace.rows"
	pcl_rows "$TMP/sum.err" >"$TMP/pcl.rows"
	diff_or_ok trace32-strace-counts "$TMP/strace.rows" "$TMP/pcl.rows" "strace -f -c" "pcl trace -s"

	# every call, in order: the same names as strace's
	strace -o "$TMP/strace.l" "$P32" calls 3 >/dev/null
	"$PCL" trace -- "$P32" calls 3 2>"$TMP/pcl.l" >/dev/null
	strace_names "$TMP/strace.l" >"$TMP/strace.names"
	names "$TMP/pcl.l" >"$TMP/pcl.names"
	diff_or_ok trace32-strace-names "$TMP/strace.names" "$TMP/pcl.names" "strace" "pcl trace"

	# the 64-bit build of the same program: as before
	strace -o "$TMP/strace64.l" "$P64" calls 3 >/dev/null
	"$PCL" trace -- "$P64" calls 3 2>"$TMP/pcl64.l" >/dev/null
	strace_names "$TMP/strace64.l" >"$TMP/strace64.names"
	names "$TMP/pcl64.l" >"$TMP/pcl64.names"
	diff_or_ok trace64-strace-names "$TMP/strace64.names" "$TMP/pcl64.names" "strace" "pcl trace"
else
	skip trace32-strace "strace is not installed"
fi

run lines64 "$PCL" trace -e $sel -- "$P64" calls $N
got="getppid $(grep -c ' getppid() *= [0-9]' "$TMP/lines64.err"), write $(grep -c ' write(fd: 3, ' "$TMP/lines64.err")"
got="$got, missing $(grep -c 'openat(dfd: CWD, filename: "/nonexistent/pcl-trace-missing", flags: RDONLY) *= -1 ENOENT' "$TMP/lines64.err")"
others=$(names "$TMP/lines64.err" | grep -vxE 'getppid|write|openat|exit_group' | sort | uniq -c)
if [ "$RC" = 0 ] && [ "$got" = "getppid $N, write 5, missing 1" ] && [ -z "$others" ]; then
	ok trace64-lines
else
	not_ok trace64-lines "-e $sel of the 64-bit build: want getppid $N, write 5, missing 1; got $got (rc $RC)" \
		"other calls: $others" "$(show "$TMP/lines64.err" 40)"
fi

# ---- a 64-bit shell running a 32-bit and a 64-bit program ----
mixed="cd $TMP && ./prog32 calls 7 && ./prog64 calls 11"
run mix "$PCL" trace -e getppid,write -- sh -c "$mixed"
got="prog32 $(grep -c '): prog32/[0-9]* getppid() ' "$TMP/mix.err")/$(grep -c '): prog32/[0-9]* write(fd: 3, ' "$TMP/mix.err")"
got="$got, prog64 $(grep -c '): prog64/[0-9]* getppid() ' "$TMP/mix.err")/$(grep -c '): prog64/[0-9]* write(fd: 3, ' "$TMP/mix.err")"
others=$(names "$TMP/mix.err" | grep -vxE 'getppid|write' | sort | uniq -c)
if [ "$RC" = 0 ] && [ "$got" = "prog32 7/5, prog64 11/5" ] && [ -z "$others" ]; then
	ok trace-mixed-lines
else
	not_ok trace-mixed-lines "getppid/write lines of each program: want prog32 7/5, prog64 11/5; got $got (rc $RC)" \
		"other calls: $others" "$(show "$TMP/mix.err" 50)"
fi
run mixsum "$PCL" trace -s -- sh -c "$mixed"
if command -v strace >/dev/null; then
	strace -f -c -o "$TMP/strace.mix" sh -c "$mixed" >/dev/null
	strace_rows "$TMP/strace.mix" >"$TMP/strace.mixrows"
	pcl_rows "$TMP/mixsum.err" >"$TMP/pcl.mixrows"
	diff_or_ok trace-mixed-strace-counts "$TMP/strace.mixrows" "$TMP/pcl.mixrows" "strace -f -c" "pcl trace -s"
else
	skip trace-mixed-strace-counts "strace is not installed"
fi
if [ "$RC" = 0 ] && ! grep -q '^pcl:' "$TMP/mixsum.err"; then
	ok trace-mixed-no-note
else
	not_ok trace-mixed-no-note "every ABI was known: want no note and rc 0, got rc $RC:" "$(grep '^pcl:' "$TMP/mixsum.err")"
fi

# ---- numbers no table names, and x32's bit ----
# syscall(1000) is no call in any ABI; 0x40000027 is x32's getpid from a
# 64-bit process (ENOSYS where x32 is off, still x32's number), but in a
# 32-bit process only a number i386 does not have
cat >"$TMP/odd.c" <<'C'
#include <unistd.h>
#include <sys/syscall.h>
int main(void) { syscall(1000); syscall(0x40000027); return 0; }
C
if cc -o "$TMP/odd64" "$TMP/odd.c" && cc -m32 -o "$TMP/odd32" "$TMP/odd.c"; then
	run odd64 "$PCL" trace -- "$TMP/odd64"
	run odd32 "$PCL" trace -- "$TMP/odd32"
	got="$(grep -cE ' NR1000\(.*= -1 ENOSYS' "$TMP/odd64.err") $(grep -cE ' getpid\(.*= ' "$TMP/odd64.err")"
	got="$got $(grep -cE ' NR1000\(.*= -1 ENOSYS' "$TMP/odd32.err") $(grep -cE ' NR1073741863\(.*= -1 ENOSYS' "$TMP/odd32.err")"
	if [ "$got" = "1 1 1 1" ]; then
		ok trace-unknown-numbers
	else
		not_ok trace-unknown-numbers "want NR1000 and x32 getpid (64-bit), NR1000 and NR1073741863 (32-bit); counts $got:" \
			"$(tail -4 "$TMP/odd64.err")" "$(tail -4 "$TMP/odd32.err")"
	fi
else
	skip trace-unknown-numbers "cannot build the test program"
fi

# i386's time64 calls are x86-64's entry points: decoded with the format
# of the name without the suffix (futex_time64 as futex), not raw
cat >"$TMP/fx.c" <<'C'
#include <unistd.h>
#include <sys/syscall.h>
int main(void) { static int word; syscall(422, &word, 1, 1, 0, 0, 0); return 0; }
C
if cc -m32 -o "$TMP/fx32" "$TMP/fx.c"; then
	run fx "$PCL" trace -e futex_time64 -- "$TMP/fx32"
	if [ "$RC" = 0 ] && grep -qE ' futex_time64\(uaddr: 0x[0-9a-f]+, op: 1, val: 1\) *= 0$' "$TMP/fx.err"; then
		ok trace32-time64
	else
		not_ok trace32-time64 "want futex_time64(uaddr: 0x..., op: 1, val: 1) = 0:" "$(show "$TMP/fx.err" 10)"
	fi
else
	skip trace32-time64 "cannot build the test program"
fi

# a 32-bit signal handler's return: i386's sigreturn (no arguments, as
# x86-64's rt_sigreturn) gives back the interrupted pause's -EINTR in 32
# bits; it is -1 EINTR, as strace says, not 4294967292
cat >"$TMP/sig.c" <<'C'
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
static void h(int s) { (void)s; syscall(SYS_getppid); }
int main(void) { signal(SIGALRM, h); for (int i = 0; i < 3; i++) { ualarm(20000, 0); pause(); } return 0; }
C
if cc -m32 -o "$TMP/sig32" "$TMP/sig.c"; then
	run sig "$PCL" trace -e sigreturn,getppid -- "$TMP/sig32"
	got="$(grep -c ' sigreturn() *= -1 EINTR' "$TMP/sig.err") $(grep -c ' getppid() *= [0-9]' "$TMP/sig.err")"
	if [ "$RC" = 0 ] && [ "$got" = "3 3" ]; then
		ok trace32-sigreturn
	else
		not_ok trace32-sigreturn "want 3 'sigreturn() = -1 EINTR' and 3 getppid; got $got:" "$(show "$TMP/sig.err" 10)"
	fi
else
	skip trace32-sigreturn "cannot build the test program"
fi

# ---- -p of a 32-bit process blocked in a call ----
# The exit of a call entered before pcl attached has no entry, nor any
# sample's registers, to say its ABI: /proc/PID/exe's ELF header (read at
# attach) does. i386's nanosleep is 162, x86-64's sync.
cat >"$TMP/nap.c" <<'C'
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void) { struct timespec ts = { 0, 600000000 }; for (int i = 0; i < 20; i++) syscall(SYS_nanosleep, &ts, 0); return 0; }
C
if cc -m32 -o "$TMP/nap32" "$TMP/nap.c"; then
	"$TMP/nap32" &
	npid=$!
	sleep 0.3
	timeout -s INT 1.5 "$PCL" trace -p $npid 2>"$TMP/nap.err" >/dev/null
	kill $npid 2>/dev/null
	wait $npid 2>/dev/null
	if grep -q '\[continued\]: nanosleep()) *= 0$' "$TMP/nap.err" && ! grep -qE ' sync\(|^pcl:' "$TMP/nap.err"; then
		ok trace32-attach-continued
	else
		not_ok trace32-attach-continued "-p of a 32-bit process in nanosleep: want '... [continued]: nanosleep()) = 0':" \
			"$(show "$TMP/nap.err" 10)"
	fi
else
	skip trace32-attach-continued "cannot build the test program"
fi

# ---- the kernel's filter: three tables' numbers still fit a page ----
# -e '*' and wide globs list the numbers they leave out; with x32's 500
# more, one by one, that was over the kernel's page (EINVAL): runs are ranges
flt=""
for e in '*' '*e*' '!*e*'; do
	run flt "$PCL" trace -e "$e" -- "$P64" calls 1
	grep -q ' exit_group() *= ?$' "$TMP/flt.err" || [ "$e" = '!*e*' ] || flt="$flt [$e: no exit_group]"
	[ "$RC" = 0 ] && ! grep -q '^pcl:' "$TMP/flt.err" || flt="$flt [$e: rc $RC $(grep -m1 '^pcl:' "$TMP/flt.err" | cut -c1-100)]"
done
if [ -z "$flt" ]; then
	ok trace-wide-filters
else
	not_ok trace-wide-filters "-e with wide globs:$flt"
fi

# a sanitizer build's reports land in the outputs the checks above read
bad=$(grep -lE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' \
	"$TMP"/*.err "$TMP"/pcl.* 2>/dev/null)
if [ -z "$bad" ]; then
	ok trace32-clean
else
	not_ok trace32-clean "sanitizer reports in:" "$bad" "$(grep -hE -A5 'Sanitizer|runtime error:' $bad | head -20)"
fi
