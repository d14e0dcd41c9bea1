#!/usr/bin/env bash
# rt_sigreturn's sys_exit says syscall id -1 (restoring the signal frame
# sets orig_ax to -1) with the interrupted call's result. pcl pairs it with
# the thread's rt_sigreturn entry and prints that call's line; it once
# printed "... [continued]: ?()) = PID" instead and lost the entry.
# sh catches SIGCHLD while it waits for each sleep. Also: wait4's options
# are named (NOHANG), as perf's waitid_options beautifier does.
. "$(dirname "$0")/lib.sh"

if [ ! -d /sys/kernel/tracing/events/raw_syscalls ] && [ ! -d /sys/kernel/debug/tracing/events/raw_syscalls ]; then
	skip trace-sigreturn "no raw_syscalls tracepoints readable"
	exit 0
fi
run sr "$PCL" trace -- sh -c 'sleep 0.05; sleep 0.05'
if [ $RC -ne 0 ] || crashed "$TMP/sr.err" $RC; then
	not_ok trace-sigreturn-runs "rc=$RC" "$(show "$TMP/sr.err")"
	exit 0
fi
if grep -q 'continued\]: ?()' "$TMP/sr.err"; then
	not_ok trace-sigreturn-no-unknown "an exit without a syscall was printed" \
		"$(grep -n 'continued\]: ?()' "$TMP/sr.err")"
else
	ok trace-sigreturn-no-unknown
fi
# when sh installs a SIGCHLD handler, its rt_sigreturn is printed (a shell without one: nothing to check)
if grep -q 'rt_sigaction(sig: CHLD, act:' "$TMP/sr.err" && ! grep -q ' rt_sigreturn() ' "$TMP/sr.err"; then
	not_ok trace-sigreturn-entry "sh handles SIGCHLD, but no rt_sigreturn line" "$(show "$TMP/sr.err" 40)"
else
	ok trace-sigreturn-entry
fi
# the same sh polls with wait4(..., WNOHANG): options decoded as perf does
if grep -qE 'wait4\(.*options: [0-9]' "$TMP/sr.err"; then
	not_ok trace-wait4-options "wait4's options printed as a number, perf says NOHANG" \
		"$(grep 'wait4(' "$TMP/sr.err")"
else
	ok trace-wait4-options
fi
