#!/usr/bin/env bash
# pcl stat targets: -p PID, -t TID, -a, -C, -G cgroup, -i (no inherit), and
# an interrupted run (Ctrl-C on the terminal's process group).
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok stat-targets-pcl-built "no executable at $PCL"
	exit 0
fi
spin=$(workload spin)
fork_touch=$(workload fork-touch)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# pcl_ok NAME TAG: not ok (and false) if the last run (tag TAG) failed or crashed.
pcl_ok() {
	if [ "$RC" -ne 0 ] || crashed "$TMP/$2.err" "$RC"; then
		not_ok "$1" "pcl exited $RC; stderr:" "$(show "$TMP/$2.err")"
		return 1
	fi
}
# msec of task-clock (or cpu-clock) in plain output
clock_ms() { awk '$2 == "msec" && ($3 == "task-clock" || $3 == "cpu-clock") { gsub(/,/, "", $1); print $1; exit }' "$1"; }

# --- -p PID: attach to a running process, end when it ends -----------------
# perf polls once a second and notices the exit up to 1 s late; pcl must be
# prompt: done within 0.4 s of the process's end.
sleep 0.4 &
pid=$!
sleep 0.1
t0=$(now)
run attach "$PCL" stat -p $pid -e task-clock,context-switches
t1=$(now)
wait $pid
took=$(secs "$t0" "$t1")
if pcl_ok stat-attach-pid attach; then
	if grep -q "^ Performance counter stats for process id '$pid':" "$TMP/attach.err" &&
		grep -q ' msec task-clock ' "$TMP/attach.err" && grep -q ' context-switches ' "$TMP/attach.err"; then
		ok stat-attach-pid
	else
		not_ok stat-attach-pid "want the header for process id '$pid' and both counters:" "$(show "$TMP/attach.err")"
	fi
	if awk -v t="$took" 'BEGIN { exit !(t >= 0.2 && t <= 0.7) }'; then ok stat-attach-pid-prompt; else
		not_ok stat-attach-pid-prompt "pcl stat -p on a sleep with 0.3 s left took $took s; want 0.2..0.7 s"
	fi
fi

# --- -t TID: a spinning thread's CPU time ----------------------------------
# On a loaded machine the spinner gets only a share of a CPU, so compare with
# what the thread itself got: its CPU time before pcl started (/proc) and at
# its end (it prints that). pcl may count no more than the thread used in
# between, and a spinning thread (not an idle one, which gets ~0 ms) must
# show a real part of it.
"$spin" 600 report >"$TMP/tid-spin.out" &
pid=$!
sleep 0.1
# utime + stime (fields 14, 15; after the ")" of the comm) in ms
cpu0=$(sed 's/.*) //' /proc/$pid/task/$pid/stat 2>/dev/null |
	awk -v hz="$(getconf CLK_TCK)" '{ print ($12 + $13) * 1000 / hz }')
t0=$(now)
run tid "$PCL" stat -t $pid -e task-clock
t1=$(now)
wait $pid
took=$(secs "$t0" "$t1")
if pcl_ok stat-attach-tid tid; then
	ms=$(clock_ms "$TMP/tid.err")
	cpu1=$(tail -1 "$TMP/tid-spin.out")
	if grep -q "^ Performance counter stats for thread id '$pid':" "$TMP/tid.err" &&
		awk -v m="$ms" -v a="$cpu0" -v b="$cpu1" -v t="$took" 'BEGIN {
			w = b - a	# the thread CPU time from before pcl started to its end
			# /proc counts in ticks (10 ms): allow 2 of them
			exit !(a != "" && b != "" && m + 0 >= 10 && m <= w + 20 && m <= t * 1000 * 1.05 + 5) }'; then
		ok stat-attach-tid
	else
		not_ok stat-attach-tid "pcl stat -t on a spin with ~500 ms left: task-clock '$ms' msec in $took s;" \
			"the thread used '$cpu0' ms before pcl started and '$cpu1' ms in all;" \
			"want >= 10 ms (an idle thread gets ~0), <= the difference + 20 ms, <= the wall time," \
			"and the header for thread id '$pid':" "$(show "$TMP/tid.err")"
	fi
	if awk -v t="$took" 'BEGIN { exit !(t <= 0.9) }'; then ok stat-attach-tid-prompt; else
		not_ok stat-attach-tid-prompt "pcl stat -t on a spin with ~0.5 s left took $took s; want <= 0.9 s"
	fi
fi

# --- -a: both CPUs; -C 0: one ----------------------------------------------
ncpu=$(getconf _NPROCESSORS_ONLN)
run all "$PCL" stat -a -e task-clock -- sleep 0.2
if pcl_ok stat-system-wide all; then
	ms=$(clock_ms "$TMP/all.err")
	want=$((ncpu * 200))
	if [ -n "$ms" ] && within "$ms" $want 10 && grep -q "^ Performance counter stats for 'system wide':" "$TMP/all.err"; then
		ok stat-system-wide
	else
		not_ok stat-system-wide "pcl stat -a -e task-clock -- sleep 0.2 on $ncpu CPUs: '$ms' msec; want $want +- 10%" \
			"and the header 'system wide':" "$(show "$TMP/all.err")"
	fi
fi
run cpu0 "$PCL" stat -C 0 -e task-clock -- sleep 0.2
if pcl_ok stat-cpu-list cpu0; then
	ms=$(clock_ms "$TMP/cpu0.err")
	if [ -n "$ms" ] && within "$ms" 200 10 && grep -q "^ Performance counter stats for 'CPU(s) 0':" "$TMP/cpu0.err"; then
		ok stat-cpu-list
	else
		not_ok stat-cpu-list "pcl stat -C 0 -e task-clock -- sleep 0.2: '$ms' msec; want 200 +- 10%" \
			"and the header 'CPU(s) 0' like perf:" "$(show "$TMP/cpu0.err")"
	fi
fi
# -a with the default events: perf counts cpu-clock instead of task-clock.
if have_perf; then
	run alld "$PCL" stat -a -- sleep 0.1
	r1=$RC
	run alldf perf stat -a -- sleep 0.1
	if [ $r1 -ne 0 ] || crashed "$TMP/alld.err" $r1; then
		not_ok stat-system-wide-default-structure "pcl stat -a exited $r1:" "$(show "$TMP/alld.err")"
	else
		unscale <"$TMP/alld.err" | norm_words >"$TMP/alld.w"
		unscale <"$TMP/alldf.err" | norm_words >"$TMP/alldf.w"
		diff_or_ok stat-system-wide-default-structure "$TMP/alldf.w" "$TMP/alld.w" perf pcl
	fi
fi

# --- -G: only what runs in one cgroup --------------------------------------
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=pcl-e2e-$$
if [ -z "$cg2" ]; then
	skip stat-cgroup "no cgroup2 mount"
elif ! mkdir "$cg2/$cg" 2>/dev/null; then
	skip stat-cgroup "cannot create a cgroup under $cg2"
else
	# The command moves itself into the cgroup and spins 300 ms, reporting
	# its CPU time; a spinner outside runs at the same time. The count for
	# the cgroup is the first one's CPU time, not both (the machine may be
	# busy, so compare with what the spinner says it got).
	"$spin" 600 &
	out=$!
	sleep 0.05
	run cgp "$PCL" stat -a -e task-clock -G $cg -- sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 300 report' \
		sh "$cg2/$cg" "$spin"
	r1=$RC
	wait $out
	if [ $r1 -ne 0 ] || crashed "$TMP/cgp.err" $r1; then
		not_ok stat-cgroup "pcl stat -a -e task-clock -G $cg exited $r1:" "$(show "$TMP/cgp.err")"
	else
		ms=$(awk '$2 == "msec" && $3 == "task-clock" { gsub(/,/, "", $1); print $1; exit }' "$TMP/cgp.err")
		cpu=$(tail -1 "$TMP/cgp.out")
		if [ -n "$ms" ] && [ -n "$cpu" ] && awk -v m="$ms" -v c="$cpu" 'BEGIN { d = m - c; if (d < 0) d = -d; exit !(d <= c * 0.1 + 5) }' &&
			grep -qE "msec task-clock +$cg +#" "$TMP/cgp.err"; then
			ok stat-cgroup
		else
			not_ok stat-cgroup "-a -G $cg -e task-clock, a 300 ms spin in the cgroup that used '$cpu' ms of CPU," \
				"another spinning outside: task-clock '$ms' msec; want the first +- 10% (+5 ms)" \
				"and the cgroup name after the event, like perf:" "$(show "$TMP/cgp.err")"
		fi
	fi
	# One -G for several events applies to all of them, as in perf; -G a,b
	# maps cgroups to events in order.
	for mode in one list; do
		case $mode in one) g=$cg ;; list) g=$cg,$cg ;; esac
		run cgl "$PCL" stat -a -x, -e task-clock,context-switches -G $g -- sleep 0.1
		n=$(awk -F, -v g=$cg '$4 == g' "$TMP/cgl.err" | wc -l)
		if [ $RC -eq 0 ] && [ "$n" -eq 2 ]; then ok stat-cgroup-$mode-for-all; else
			not_ok stat-cgroup-$mode-for-all "pcl stat -a -x, -e task-clock,context-switches -G $g: exit $RC;" \
				"want both lines with the cgroup in field 4, like perf:" "$(show "$TMP/cgl.err")"
		fi
	done
	if have_perf; then
		for fmt in plain csv json; do
			case $fmt in plain) o=() ;; csv) o=(-x,) ;; json) o=(-j) ;; esac
			for tool in "$PCL" perf; do
				# On a loaded machine the writer may not be scheduled in the
				# 0.1 s window: the counters say <not counted>. Try again (up to
				# 3 runs); never compare with a run that missed its window.
				for try in 1 2 3; do
					# a task that sleeps between writes: a cgroup event is scheduled in
					# only at a cgroup switch, which a pure spinner may never cause
					(echo $BASHPID >"$cg2/$cg/cgroup.procs" && exec "$(workload writes)" 50 250) &
					in=$!
					sleep 0.05
					run cg-${tool##*/} "$tool" stat -a "${o[@]}" -e task-clock,context-switches -G $cg -- sleep 0.1
					rc=$RC
					wait $in
					[ $rc -eq 0 ] && grep -q 'not counted' "$TMP/cg-${tool##*/}.err" || break
				done
				[ "$tool" = perf ] || r1=$rc
			done
			if [ $r1 -ne 0 ] || crashed "$TMP/cg-pcl.err" $r1; then
				not_ok stat-cgroup-layout-$fmt "pcl exited $r1:" "$(show "$TMP/cg-pcl.err")"
				continue
			fi
			if grep -q 'not counted' "$TMP/cg-perf.err"; then
				skip stat-cgroup-layout-$fmt "perf's run said <not counted> 3 times (the cgroup's task was not scheduled in the window: machine too busy)"
				continue
			fi
			if [ $fmt = plain ]; then norm=norm_layout; else norm=norm_words; fi
			unnull <"$TMP/cg-pcl.err" | unscale | $norm >"$TMP/cgpp.w"
			unnull <"$TMP/cg-perf.err" | unscale | $norm >"$TMP/cgpf.w"
			diff_or_ok stat-cgroup-layout-$fmt "$TMP/cgpf.w" "$TMP/cgpp.w" perf pcl
		done
	fi
	rmdir "$cg2/$cg" 2>/dev/null
fi

# --- -i / --no-inherit: a forked child's page faults -----------------------
N=3000
run inh "$PCL" stat -x, -e page-faults -- "$fork_touch" $N
r1=$RC
a=$(csv_count "$TMP/inh.err" page-faults)
run noinh "$PCL" stat -x, -i -e page-faults -- "$fork_touch" $N
r2=$RC
b=$(csv_count "$TMP/noinh.err" page-faults)
run noinh2 "$PCL" stat -x, --no-inherit -e page-faults -- "$fork_touch" $N
r3=$RC
c=$(csv_count "$TMP/noinh2.err" page-faults)
if [ $r1$r2$r3 = 000 ] && [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ "$a" -ge $N ] && [ "$b" -lt $((N / 3)) ] &&
	[ "$c" -lt $((N / 3)) ]; then
	ok stat-no-inherit
else
	not_ok stat-no-inherit "fork-touch $N (the child touches $N pages): page-faults with inherit '$a' (want >= $N)," \
		"with -i '$b', with --no-inherit '$c' (want < $((N / 3))); exit statuses $r1 $r2 $r3" \
		"$(show "$TMP/noinh.err" 5)"
fi

# --- Ctrl-C: SIGINT to the process group of pcl and its command ------------
# interrupt TAG CMD...: start CMD in its own process group (job control),
# send SIGINT to the group after 0.5 s; RC and TOOK (s from the signal).
interrupt() {
	local tag=$1 pid dog t0 t1
	shift
	set -m
	"$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	pid=$!
	set +m
	# A watchdog in case the signal is not acted on.
	(for _ in $(seq 200); do sleep 0.1; kill -0 "$pid" 2>/dev/null || exit 0; done
		kill -KILL -- -"$pid") >/dev/null 2>&1 &
	dog=$!
	sleep 0.5
	t0=$(now)
	kill -INT -- -"$pid"
	wait "$pid"
	RC=$?
	t1=$(now)
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	TOOK=$(secs "$t0" "$t1")
}
interrupt sigint "$PCL" stat -e task-clock -- sleep 10
prc=$RC
ptook=$TOOK
frc=
if have_perf; then
	interrupt sigintf perf stat -e task-clock -- sleep 10
	frc=$RC
fi
if [ -z "$frc" ]; then
	frc=$prc
	note="(perf not installed: exit status not compared)"
else
	note="perf exited $frc"
fi
if [ "$prc" -ne 137 ] && awk -v t="$ptook" 'BEGIN { exit !(t <= 2) }' &&
	grep -q '^ Performance counter stats for ' "$TMP/sigint.err" && grep -q ' msec task-clock ' "$TMP/sigint.err" &&
	grep -q 'seconds time elapsed' "$TMP/sigint.err" && ! crashed "$TMP/sigint.err" 0; then
	ok stat-sigint-prints-counts
else
	not_ok stat-sigint-prints-counts "SIGINT to the group of 'pcl stat -e task-clock -- sleep 10' after 0.5 s:" \
		"exit $prc after $ptook s (want <= 2 s), counts so far on stderr:" "$(show "$TMP/sigint.err")"
fi
# perf 6.1 prints the counts, then re-raises SIGINT on itself (status 130 in
# a shell); when it reaps the interrupted child before it sees its own
# signal it exits 0 instead (a race: about one run in five here). Accept
# 130 and whatever perf did this time.
if [ "$prc" = 130 ] || [ "$prc" = "$frc" ]; then ok stat-sigint-exit-status; else
	not_ok stat-sigint-exit-status "SIGINT to the group: pcl exited $prc; want 130 (perf re-raises SIGINT), $note"
fi
exit 0
