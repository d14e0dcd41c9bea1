#!/usr/bin/env bash
# pcl script prints a tracepoint's payload as perf script does: the
# event's print fmt run through libtraceevent. Files recorded by perf and
# by pcl record (system-wide, a short shell loop that opens files, execs
# and sleeps) with events whose print fmts use what libtraceevent must get
# right: sched_switch's prev_state letters and '==>', sched_wakeup,
# openat's 'dfd: 0x%08lx' and sys_exit's return, raw_syscalls' array
# elements, kmem's %pS call sites and __print_flags gfp flags, timer's %ps
# functions and hrtimer modes, irq's __print_symbolic vectors and a
# __get_str string, exec's filename string, rcu_utilization's string
# from the printk formats, and maple_tree's tab in its format string. Each file is read by perf script and by pcl
# script and compared line by line, whole and event by event; on pcl's
# files, perf script must print those strings (the writer copies the
# printk formats). A pipe-mode stream too.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip script-tracepoint "perf is not installed"
	exit 0
fi
if ! has_cmd script; then
	not_ok script-tracepoint-command "'$PCL help' lists no script command"
	exit 0
fi
tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing
if [ ! -d $tracefs/events/sched/sched_switch ]; then
	skip script-tracepoint "tracefs is not mounted (no $tracefs/events/sched/sched_switch)"
	exit 0
fi

want="sched:sched_switch sched:sched_wakeup sched:sched_process_exec
syscalls:sys_enter_openat syscalls:sys_exit_openat raw_syscalls:sys_enter raw_syscalls:sys_exit
kmem:kmalloc kmem:kfree kmem:mm_page_alloc timer:hrtimer_start timer:hrtimer_expire_entry
timer:timer_start irq:softirq_entry irq:softirq_raise irq:irq_handler_entry rcu:rcu_utilization
workqueue:workqueue_queue_work signal:signal_generate maple_tree:ma_write"
events=()
for tp in $want; do
	[ -d "$tracefs/events/${tp%%:*}/${tp#*:}" ] && events+=("$tp")
done
evlist=$(
	IFS=,
	echo "${events[*]}"
)
# Opens (cat), execs, forks, sleeps (switches, wakeups, hrtimers) and writes.
loop="for i in 1 2 3 4 5; do cat /etc/hostname >$TMP/loop.out; sleep 0.02; done"

# script_pair TAG FILE: perf script and pcl script on FILE, into
# $TMP/TAG.{perf,pcl}.{out,err}; exit statuses in PRC and CRC.
script_pair() {
	run_long "$1.perf" 120 perf script -i "$2"
	PRC=$RC
	run_long "$1.pcl" 120 "$PCL" script -i "$2"
	CRC=$RC
}
# compare NAME TAG DESC: pcl's stdout equals perf's, pcl exited 0 and
# said nothing on stderr when perf said nothing.
compare() {
	local name=$1 P=$TMP/$2.perf C=$TMP/$2.pcl desc=$3
	if [ "$PRC" -ne 0 ] || [ ! -s "$P.out" ]; then
		not_ok "$name" "oracle: perf script $desc: exit $PRC, $(wc -l <"$P.out") lines" "$(show "$P.err")"
	elif [ "$CRC" -ne 0 ] || crashed "$C.err" "$CRC"; then
		not_ok "$name" "pcl script $desc: exit $CRC (want 0); stderr:" "$(show "$C.err")"
	elif ! cmp -s "$P.out" "$C.out"; then
		not_ok "$name" "pcl script $desc differs from perf's ($(wc -l <"$P.out") lines, pcl $(wc -l <"$C.out")):" \
			"$(diff -u --label perf --label pcl "$P.out" "$C.out" | head -30)"
	elif [ ! -s "$P.err" ] && [ -s "$C.err" ]; then
		not_ok "$name" "pcl script $desc: stdout as perf's, but stderr has lines:" "$(show "$C.err")"
	else
		ok "$name"
	fi
}
# per_event BY TAG: for each event, its lines in perf's and pcl's outputs
# are the same (a finer report than the whole file's); an event without
# samples in the recording is a skip.
per_event() {
	local by=$1 P=$TMP/$2.perf.out C=$TMP/$2.pcl.out tp n
	[ -s "$P" ] || return
	for tp in "${events[@]}"; do
		n=$(grep -c " $tp: " "$P")
		if [ "$n" -eq 0 ]; then
			skip "script-tracepoint-$by-${tp#*:}" "no $tp sample in the $by recording"
			continue
		fi
		grep " $tp: " "$P" >"$TMP/$2.$tp.perf"
		grep " $tp: " "$C" >"$TMP/$2.$tp.pcl"
		diff_or_ok "script-tracepoint-$by-${tp#*:}" "$TMP/$2.$tp.perf" "$TMP/$2.$tp.pcl" \
			"perf script ($n lines)" "pcl script"
	done
}

for by in perf pcl; do
	id=tp-$by
	bpf=
	[ $by = perf ] && bpf=--no-bpf-event
	# shellcheck disable=SC2086
	record_to script-tracepoint $by $id $bpf -a -e "$evlist" -o "$TMP/$id.data" -- sh -c "$loop" || continue
	script_pair "$id" "$TMP/$id.data"
	compare "script-tracepoint-$by-file" "$id" "-i $id.data (recorded by $by)"
	per_event $by "$id"
done

# What only the print fmt gives: a check that the comparison is about the
# formatted text (and perf's oracle output has it), on both recorders' files.
for by in perf pcl; do
	P=$TMP/tp-$by.perf.out
	[ -s "$P" ] || continue
	bad=
	grep -qE ' sched:sched_switch: prev_comm=.* prev_state=[A-Z+|]+ ==> next_comm=' "$P" ||
		bad+=" sched_switch(prev_state ==>)"
	grep -qE ' syscalls:sys_enter_openat: dfd: 0x[0-9a-f]{8}, filename: 0x' "$P" ||
		bad+=" sys_enter_openat(dfd: 0x)"
	if [ -n "$bad" ]; then
		not_ok "script-tracepoint-$by-perf-format" "perf script on tp-$by.data lacks the print fmt text of:$bad" \
			"$(show "$P" 5)"
	else
		ok "script-tracepoint-$by-perf-format"
	fi
done

# The printk formats travel in pcl's files: rcu_utilization's string is
# text for perf, not the kernel address of the string.
P=$TMP/tp-pcl.perf.out
if [ ! -d $tracefs/events/rcu/rcu_utilization ]; then
	skip script-tracepoint-pcl-printk-formats "no rcu:rcu_utilization tracepoint"
elif [ ! -s "$P" ] || ! grep -q ' rcu:rcu_utilization: ' "$P"; then
	skip script-tracepoint-pcl-printk-formats "no rcu:rcu_utilization sample in pcl's recording"
elif grep -qE ' rcu:rcu_utilization: (0x)?[0-9a-f]{8,}$' "$P"; then
	not_ok script-tracepoint-pcl-printk-formats \
		"perf script prints rcu_utilization's string as an address on pcl's file (no printk formats):" \
		"$(grep -m3 ' rcu:rcu_utilization: ' "$P" | sed 's/^/| /')"
else
	ok script-tracepoint-pcl-printk-formats
fi

# A pipe-mode stream of each recorder, read from a file.
for by in perf pcl; do
	id=tp-pipe-$by
	if [ $by = perf ]; then
		timeout -k 5 60 perf record -q --no-bpf-event -e sched:sched_switch,syscalls:sys_enter_openat \
			-o - -- sh -c "$loop" >"$TMP/$id.data" 2>"$TMP/rec-$id.err"
	else
		timeout -k 5 60 "$PCL" record -q -e sched:sched_switch,syscalls:sys_enter_openat \
			-o - -- sh -c "$loop" >"$TMP/$id.data" 2>"$TMP/rec-$id.err"
	fi
	RC=$?
	if [ "$RC" -ne 0 ] || [ ! -s "$TMP/$id.data" ]; then
		not_ok "script-tracepoint-$id" "$by record -o - failed (exit $RC)" "$(show "$TMP/rec-$id.err")"
		continue
	fi
	script_pair "$id" "$TMP/$id.data"
	compare "script-tracepoint-$id" "$id" "-i $id.data (a pipe-mode stream by $by)"
done
