#!/usr/bin/env bash
# pcl bench, the workload of perf's lock test (perf bench sched messaging):
#   bench-msg-OPTS    runs, and prints perf bench's lines (numbers aside) for
#                     the same options: -g, -l, -p (pipes), -t (threads);
#   bench-msg-work    it does hackbench's work: -g 1 -l 10 writes 20 senders
#                     x 20 receivers x 10 messages (counted with pcl stat on
#                     syscalls:sys_enter_write) and forks 40 workers;
#   bench-simple      -f simple prints the time alone;
#   bench-pipe        sched pipe's lines, as perf's, in both modes;
#   bench-list        `pcl bench sched` lists the benchmarks as perf does;
#   bench-err-*       an unknown collection, benchmark or option is refused.
. "$(dirname "$0")/lib.sh"

num() { sed -E 's/ *[0-9][0-9.]*/ N/g'; }

for o in "" "-g 2 -l 10" "-g 1 -l 20 -p" "-g 2 -t" "--group 1 --nr_loops 5 --pipe --thread"; do
	name="bench-msg$(echo "$o" | tr -d ' ')"
	# shellcheck disable=SC2086
	"$PCL" bench sched messaging $o >"$TMP/c.out" 2>"$TMP/c.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok "$name" "exit $rc" "$(show "$TMP/c.err")"
		continue
	fi
	if have_perf; then
		# shellcheck disable=SC2086
		perf bench sched messaging $o 2>&1 | num >"$TMP/p.out"
		num <"$TMP/c.out" >"$TMP/c.norm"
		diff_or_ok "$name" "$TMP/p.out" "$TMP/c.norm" "perf bench $o" "pcl bench $o"
	elif grep -q '^     Total time: [0-9]*\.[0-9][0-9][0-9] \[sec\]$' "$TMP/c.out"; then
		ok "$name"
	else
		not_ok "$name" "no 'Total time' line" "$(show "$TMP/c.out")"
	fi
done

# the work: 20 x 20 x 10 writes of the senders (and a few of the start pipe)
if [ -d /sys/kernel/tracing/events/syscalls ] || [ -d /sys/kernel/debug/tracing/events/syscalls ]; then
	"$PCL" stat -x, -e syscalls:sys_enter_write -e task-clock -- \
		"$PCL" bench sched messaging -g 1 -l 10 >/dev/null 2>"$TMP/st.err"
	w=$(csv_count "$TMP/st.err" syscalls:sys_enter_write)
	if [ -n "$w" ] && [ "$w" -ge 4000 ] && [ "$w" -lt 4200 ]; then
		ok "bench-msg-work ($w writes)"
	else
		not_ok "bench-msg-work" "writes: '$w', expected 4000 and the start pipe's" \
			"$(show "$TMP/st.err")"
	fi
else
	skip bench-msg-work "no syscalls tracepoints"
fi

out=$("$PCL" bench -f simple sched messaging -g 1 -l 5)
if [[ $out =~ ^[0-9]+\.[0-9]{3}$ ]]; then
	ok bench-simple
else
	not_ok bench-simple "expected the time alone:" "$out"
fi

for o in "-l 2000" "-l 2000 -T"; do
	name="bench-pipe$(echo "$o" | tr -d ' ')"
	# shellcheck disable=SC2086
	if ! "$PCL" bench sched pipe $o >"$TMP/c.out" 2>"$TMP/c.err"; then
		not_ok "$name" "failed" "$(show "$TMP/c.err")"
		continue
	fi
	if have_perf; then
		# shellcheck disable=SC2086
		perf bench sched pipe $o 2>&1 | num >"$TMP/p.out"
		num <"$TMP/c.out" >"$TMP/c.norm"
		diff_or_ok "$name" "$TMP/p.out" "$TMP/c.norm" "perf bench sched pipe $o" "pcl"
	else
		ok "$name"
	fi
done

if have_perf; then
	perf bench sched >"$TMP/p.out" 2>&1
	"$PCL" bench sched >"$TMP/c.out" 2>&1
	diff_or_ok bench-list "$TMP/p.out" "$TMP/c.out" "perf bench sched" "pcl bench sched"
fi

for bad in "mem" "sched nosuch" "sched messaging -x" "sched messaging -g 0"; do
	name="bench-err-$(echo "$bad" | tr -d ' -')"
	# shellcheck disable=SC2086
	"$PCL" bench $bad >/dev/null 2>"$TMP/e.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ] && grep -q '^pcl: ' "$TMP/e.err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(show "$TMP/e.err")"
	fi
done

# Workers that cannot all start (a process limit as another user): one
# error and exit 1, with the started ones stopped before their memory is
# freed, not left waiting for the missing ones.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip bench-start-fails "needs root and setpriv to run as nobody under ulimit -u"
else
	for m in -t ""; do
		name="bench-start-fails${m:+-threads}"
		timeout -k 5 60 setpriv --reuid=nobody --regid=nogroup --clear-groups \
			bash -c "ulimit -u 30; exec '$PCL' bench sched messaging $m -g 3 -l 10" \
			>/dev/null 2>"$TMP/lim.err"
		rc=$?
		if [ $rc = 1 ] && [ "$(grep -c . "$TMP/lim.err")" = 1 ] &&
			grep -q '^pcl: bench sched messaging: cannot start a' "$TMP/lim.err"; then
			ok "$name"
		else
			not_ok "$name" "exit $rc (want 1, 124 is a hang), stderr:" "$(show "$TMP/lim.err")"
		fi
	done
fi
