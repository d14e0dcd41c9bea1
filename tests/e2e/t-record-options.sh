#!/usr/bin/env bash
# pcl record's options do what perf record's do: the sampling rate and
# period, the events, the sample_type and attr bits each flag sets (checked
# against perf record with the same flag), DWARF call chains, the targets
# (-a, -C, -p, -t), -q, the default event, the exit status, and bad events.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-options "perf is not installed"
	exit 0
fi
if ! has_record; then
	not_ok record-options-command "'$PCL help' lists no record command"
	exit 0
fi
hot=$(workload hot) || { not_ok record-options-workload "cannot build tests/workloads/hot.c"; exit 0; }
spin=$(workload spin)
threads=$(workload threads)
touch_pages=$(workload touch-pages)

# rec NAME TAG ARGS...: "pcl record -o $TMP/TAG.data ARGS"; not ok NAME
# (and false) if it fails.
rec() {
	local name=$1 tag=$2
	shift 2
	run_long "$tag" 40 "$PCL" record -o "$TMP/$tag.data" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$tag.err" "$RC"; then
		not_ok "$name" "pcl record -o FILE $*: exit $RC (want 0); stderr:" "$(show "$TMP/$tag.err")"
		return 1
	fi
}
maxrate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

# --- -F 999: about 999 samples a second of a busy CPU ------------------------------
# Per second of the workload's CPU time (spin reports it), not of wall
# time: on a loaded machine the workload gets less than a whole CPU.
if rec record-options-freq F -F 999 -- "$spin" 1000 report; then
	n=$(perf_samples "$TMP/F.data")
	cpu=$(tail -1 "$TMP/F.out")
	rate=$(awk -v n="${n:-0}" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%.0f", n * 1000 / c }')
	a=$(evlist_attr "$TMP/F.data")
	if grep -qx 'sample_period_freq=999' <<<"$a" && grep -qx 'freq=1' <<<"$a" &&
		awk -v r="${rate:-0}" 'BEGIN { exit !(r >= 750 && r <= 1150) }'; then
		ok record-options-freq
	else
		not_ok record-options-freq "pcl record -F 999 -- spin 1000: $n samples in $cpu ms of CPU: $rate per CPU second (want 750..1150)," \
			"attr: $(grep -E '^(freq|sample_period_freq)=' <<<"$a" | tr '\n' ' ') (want freq=1 sample_period_freq=999)"
	fi
fi

# --- -c 100000 on task-clock: every sample's period is 100000 -----------------------------
# and there is one sample per 100 us of the workload's CPU time.
if rec record-options-period c -e task-clock -c 100000 -- "$spin" 300 report; then
	perf script -F period -i "$TMP/c.data" 2>/dev/null | awk 'NF { print $1 }' | sort | uniq -c >"$TMP/c.periods"
	n=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/c.periods")
	cpu=$(tail -1 "$TMP/c.out")
	want=$(awk -v c="${cpu:-0}" 'BEGIN { printf "%.0f", c * 10 }')
	if [ "$(awk '{ print $2 }' "$TMP/c.periods")" = 100000 ] && [ "$want" -ge 100 ] && within "$n" "$want" 20; then
		ok record-options-period
	else
		not_ok record-options-period "perf script -F period on 'pcl record -e task-clock -c 100000 -- spin 300':" \
			"want every period 100000 and $want samples +-20% (spin used $cpu ms of CPU), got $n; count period:" \
			"$(show "$TMP/c.periods")"
	fi
fi

# --- --freq=max and -F max: the kernel's maximum sample rate -------------------------
for opt in --freq=max "-F max"; do
	tag=max${opt//[^a-zA-Z]/}
	# shellcheck disable=SC2086 # "-F max" is two words
	if rec "record-options-$tag" "$tag" $opt -- "$hot" 100; then
		f=$(evlist_attr "$TMP/$tag.data" | sed -n 's/^sample_period_freq=//p')
		if [ "$f" = "$maxrate" ]; then
			ok "record-options-$tag"
		else
			not_ok "record-options-$tag" "pcl record $opt: sample_freq '$f' in perf evlist -v, want $maxrate" \
				"(/proc/sys/kernel/perf_event_max_sample_rate)"
		fi
	fi
done

# --- two events -----------------------------------------------------------------------
if rec record-options-two-events ev -e task-clock,page-faults -- "$touch_pages" 3000; then
	names=$(perf evlist -i "$TMP/ev.data" 2>/dev/null | tr '\n' ' ')
	counts=$(perf script -F event -i "$TMP/ev.data" 2>/dev/null | tr -d ' :' | sort | uniq -c | tr -s ' ' | tr '\n' ',')
	if [ "$names" = "task-clock page-faults " ] && [[ "$counts" == *task-clock* && "$counts" == *page-faults* ]]; then
		ok record-options-two-events
	else
		not_ok record-options-two-events "pcl record -e task-clock,page-faults -- touch-pages 3000:" \
			"perf evlist: '$names' (want 'task-clock page-faults'), samples per event: '$counts' (want both)"
	fi
fi

# --- each flag changes the attr as it does for perf record -------------------------------
# (perf record runs with --no-bpf-event, in the base and with each flag
# alike: its side-band thread costs it a second per run.)
# delta BASE FILE: the attr lines of FILE not in BASE ("+...") and of BASE
# not in FILE ("-..."), values of period/freq/size/config/ids left out.
delta() {
	{
		comm -13 "$1" "$2" | sed 's/^/+/'
		comm -23 "$1" "$2" | sed 's/^/-/'
	} | grep -vE '^[+-](sample_period_freq|size|config|id)='
}
if rec record-options-attr-base base -- "$hot" 50 &&
	perf record -q --no-bpf-event -o "$TMP/pbase.data" -- "$hot" 50 >/dev/null 2>&1; then
	evlist_attr "$TMP/base.data" >"$TMP/base.attr"
	evlist_attr "$TMP/pbase.data" >"$TMP/pbase.attr"
	for flag in -T --sample-cpu -d -s --switch-events -g -i --no-inherit; do
		tag=flag${flag//[^a-zA-Z]/}
		rec "record-options-attr$flag" "$tag" "$flag" -- "$hot" 50 || continue
		perf record -q --no-bpf-event "$flag" -o "$TMP/p$tag.data" -- "$hot" 50 >/dev/null 2>&1
		evlist_attr "$TMP/$tag.data" >"$TMP/$tag.attr"
		evlist_attr "$TMP/p$tag.data" >"$TMP/p$tag.attr"
		# -g also copies 64 bytes of stack for the leaf repair (t-fpleaf.sh), which perf does not
		dp=$(delta "$TMP/base.attr" "$TMP/$tag.attr" |
			{ if [ "$flag" = -g ]; then grep -vxE '\+(sample_type:STACK_USER|sample_stack_user=64)'; else cat; fi } |
			tr '\n' ' ')
		df=$(delta "$TMP/pbase.attr" "$TMP/p$tag.attr" | tr '\n' ' ')
		if [ "$dp" = "$df" ]; then
			ok "record-options-attr$flag"
		else
			not_ok "record-options-attr$flag" "what $flag changes in perf evlist -v (sample_type/read_format flags, attr bits):" \
				"pcl record: '$dp'" "perf record: '$df'" "pcl's attr with $flag: $(perf evlist -v -i "$TMP/$tag.data" 2>&1 | head -1)"
		fi
	done
	# -T: timestamps are there (perf record has them by default too).
	if grep -qx 'sample_type:TIME' "$TMP/flagT.attr" 2>/dev/null; then
		ok record-options-timestamps
	else
		not_ok record-options-timestamps "pcl record -T: no TIME in sample_type: $(perf evlist -v -i "$TMP/flagT.data" 2>&1 | head -1)"
	fi
fi
# -s: per-thread counts, as PERF_RECORD_READ when inheriting threads exit.
if rec record-options-per-thread-read sthr -s -- "$threads" 2 200; then
	perf record -q -s -o "$TMP/psthr.data" -- "$threads" 2 200 >/dev/null 2>&1
	r=$(perf report --stats -i "$TMP/sthr.data" 2>/dev/null | awk '$1 == "READ" { print $3; exit }')
	rp=$(perf report --stats -i "$TMP/psthr.data" 2>/dev/null | awk '$1 == "READ" { print $3; exit }')
	if [ "${r:-0}" -ge 1 ]; then
		ok record-options-per-thread-read
	else
		not_ok record-options-per-thread-read "pcl record -s -- threads 2 200: ${r:-no} READ events in perf report --stats" \
			"(perf record -s: ${rp:-none})"
	fi
fi

# --switch-events: the file holds the context switches (3 busy threads on
# fewer CPUs switch often), as perf record's does.
if rec record-options-switch-records swr --switch-events -- "$threads" 3 200; then
	n=$(perf report --stats -i "$TMP/swr.data" 2>/dev/null | awk '$1 == "SWITCH" || $1 == "SWITCH_CPU_WIDE" { print $3; exit }')
	if [ "${n:-0}" -ge 1 ]; then
		ok record-options-switch-records
	else
		not_ok record-options-switch-records "pcl record --switch-events -- threads 3 200: ${n:-no} SWITCH events" \
			"in perf report --stats (want some):" "$(perf report --stats -i "$TMP/swr.data" 2>&1 | head -20)"
	fi
fi

# --- --call-graph dwarf,4096: user registers and 4 KiB of stack ---------------------------------
if hotfp=$(workload_fp hot) && rec record-options-dwarf dw --call-graph dwarf,4096 -- "$hotfp" 300; then
	perf record -q --call-graph dwarf,4096 -o "$TMP/pdw.data" -- "$hotfp" 100 >/dev/null 2>&1
	a=$(evlist_attr "$TMP/dw.data")
	want_regs=$(evlist_attr "$TMP/pdw.data" | sed -n 's/^sample_regs_user=//p')
	bad=()
	for k in sample_type:REGS_USER sample_type:STACK_USER sample_stack_user=4096 "sample_regs_user=$want_regs"; do
		grep -qxF "$k" <<<"$a" || bad+=("no '$k'")
	done
	run_long dwrep 60 perf report --stdio --no-children -i "$TMP/dw.data"
	if [ "$RC" -ne 0 ] || [ "$RC" -ge 128 ]; then
		bad+=("perf report exit $RC:" "$(show "$TMP/dwrep.err")")
	elif ! grep -q 'hot_leaf' "$TMP/dwrep.out"; then
		bad+=("perf report does not show hot_leaf:" "$(show "$TMP/dwrep.out")")
	fi
	if [ ${#bad[@]} -eq 0 ]; then
		ok record-options-dwarf
	else
		not_ok record-options-dwarf "pcl record --call-graph dwarf,4096 -- hot 300:" "${bad[@]}" \
			"perf evlist -v: $(perf evlist -v -i "$TMP/dw.data" 2>&1 | head -1)"
	fi
	# perf unwinds the stacks pcl copied: hot_leaf <- middle <- outer <- main.
	# The names under hot_leaf's entry, the tree's "|", "---", "--NN%--" drawn away.
	if awk '/\[[.k]\] / { if (f) exit; if ($NF == "hot_leaf") f = 1; next }
			f { sub(/.*-/, ""); gsub(/[| ]/, ""); if ($0 != "") c = c " " $0 }
			END { print c " " }' "$TMP/dwrep.out" | grep -q ' hot_leaf middle outer main '; then
		ok record-options-dwarf-unwind
	else
		not_ok record-options-dwarf-unwind "perf report on pcl record --call-graph dwarf: want the chain hot_leaf/middle/outer/main" \
			"$(grep -A6 -E '\[\.\] hot_leaf' "$TMP/dwrep.out" | head -8)"
	fi
fi

# --- -a and -C 0: system-wide ----------------------------------------------------------------------
# pids_of FILE: sorted unique pids of FILE's samples; cpus_of FILE: cpus.
pids_of() { perf script -F pid -i "$1" 2>/dev/null | awk '{ print $1 }' | sort -u; }
cpus_of() { perf script -F cpu -i "$1" 2>/dev/null | tr -d '[] ' | awk '{ print $1 + 0 }' | sort -u | tr '\n' ' '; }
"$spin" 2500 & s1=$!
"$spin" 2500 & s2=$!
sleep 0.1
if rec record-options-all a -a -- sleep 0.5; then
	p=$(pids_of "$TMP/a.data")
	perf_reads_clean record-options-all-report-clean arep perf report --stdio -i "$TMP/a.data"
	if grep -qx "$s1" <<<"$p" && grep -qx "$s2" <<<"$p" && [ "$(wc -l <<<"$p")" -ge 3 ]; then
		ok record-options-all
	else
		not_ok record-options-all "pcl record -a -- sleep 0.5 with two spins running (pids $s1 $s2):" \
			"pids in perf script: $(tr "\n" " " <<<"$p") (want both spins and others)"
	fi
fi
kill "$s1" "$s2" 2>/dev/null
wait "$s1" "$s2" 2>/dev/null
if command -v taskset >/dev/null 2>&1; then
	taskset -c 0 "$spin" 2500 & s1=$!
	taskset -c 0 "$spin" 2500 & s2=$!
	sleep 0.1
	if rec record-options-cpu C -C 0 -- sleep 0.5; then
		p=$(pids_of "$TMP/C.data")
		c=$(cpus_of "$TMP/C.data")
		if grep -qx "$s1" <<<"$p" && grep -qx "$s2" <<<"$p" && [ "$c" = "0 " ]; then
			ok record-options-cpu
		else
			not_ok record-options-cpu "pcl record -C 0 -- sleep 0.5 with two spins on CPU 0 (pids $s1 $s2):" \
				"pids: $(tr "\n" " " <<<"$p") (want both spins), cpus: '$c' (want 0 only)"
		fi
	fi
	kill "$s1" "$s2" 2>/dev/null
	wait "$s1" "$s2" 2>/dev/null
else
	skip record-options-cpu "taskset is not installed"
fi

# --- -p PID: attach to a running process, symbolize it -------------------------------------------------
"$hot" 1500 & hp=$!
sleep 0.3
if rec record-options-pid p -p "$hp"; then
	top=$(perf report --stdio --no-children --sort comm,sym -i "$TMP/p.data" 2>/dev/null | grep -v '^#' | awk 'NF { print $2, $4; exit }')
	ev=$(perf script --show-task-events --show-mmap-events -i "$TMP/p.data" 2>/dev/null | grep -v cpu-clock)
	if [ "$top" = "$(basename "$hot") hot_leaf" ] && grep -q "PERF_RECORD_COMM.*$hp/$hp" <<<"$ev" &&
		grep -q "PERF_RECORD_MMAP2* $hp/$hp.*$hot" <<<"$ev"; then
		ok record-options-pid
	else
		not_ok record-options-pid "pcl record -p PID of a running 'hot 1500' (pid $hp), until it exits:" \
			"perf report's top comm and symbol '$top' (want '$(basename "$hot") hot_leaf')," \
			"want a COMM and an MMAP/MMAP2 of the binary for pid $hp among the task events:" "$(head -8 <<<"$ev")"
	fi
fi
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null
# -p follows every thread of the process; -t only the one thread.
"$threads" 3 1500 list >"$TMP/thr.list" & tp=$!
sleep 0.3
tid=$(awk '$3 == "wl-thread-1" { print $2 }' "$TMP/thr.list")
if rec record-options-pid-threads pt -p "$tp"; then
	n=$(perf script -F tid -i "$TMP/pt.data" 2>/dev/null | sort -u | wc -l)
	if [ "$n" -ge 3 ]; then
		ok record-options-pid-threads
	else
		not_ok record-options-pid-threads "pcl record -p PID of 'threads 3 1500': samples from $n tids (want the 3 busy threads)"
	fi
fi
wait "$tp" 2>/dev/null
"$threads" 3 1500 list >"$TMP/thr.list" & tp=$!
sleep 0.3
tid=$(awk '$3 == "wl-thread-1" { print $2 }' "$TMP/thr.list")
if [ -z "$tid" ]; then
	not_ok record-options-tid "threads 3 1500 list printed no wl-thread-1: $(cat "$TMP/thr.list")"
elif rec record-options-tid t -t "$tid"; then
	t=$(perf script -F tid -i "$TMP/t.data" 2>/dev/null | sort | uniq -c | tr -s ' ')
	if [ "$(awk '{ print $2 }' <<<"$t")" = "$tid" ] && [ "$(awk '{ print $1 }' <<<"$t")" -ge 100 ]; then
		ok record-options-tid
	else
		not_ok record-options-tid "pcl record -t TID of wl-thread-1 ($tid): samples per tid: $(tr "\n" " " <<<"$t") (want only $tid, >= 100)"
	fi
fi
wait "$tp" 2>/dev/null

# --- -q, the default event, the exit status, a bad event ------------------------------------------
if rec record-options-quiet q -q -- "$hot" 100; then
	if [ ! -s "$TMP/q.err" ] && [ ! -s "$TMP/q.out" ]; then
		ok record-options-quiet
	else
		not_ok record-options-quiet "pcl record -q printed something:" "$(show "$TMP/q.err")" "$(show "$TMP/q.out")"
	fi
fi
if rec record-options-default-event def -- "$hot" 100; then
	name=$(perf evlist -i "$TMP/def.data" 2>/dev/null | head -1)
	notes=$(grep -v '^\[ pcl record: ' "$TMP/def.err")
	if [[ "$name" == cpu-clock* ]] && [ "$(grep -c . <<<"$notes")" -eq 1 ] && grep -q 'cpu-clock' <<<"$notes"; then
		ok record-options-default-event
	else
		not_ok record-options-default-event "pcl record (no -e) on a machine without a hardware PMU:" \
			"event '$name' (want cpu-clock), want one note line naming cpu-clock besides the summary; stderr:" \
			"$(show "$TMP/def.err")"
	fi
fi
run status "$PCL" record -o "$TMP/status.data" -- sh -c 'exit 3'
s3=$RC
run status1 "$PCL" record -o "$TMP/status1.data" -- false
s1=$RC
# A command killed by a signal: 128 + the signal, as a shell (and perf) say.
run status2 "$PCL" record -o "$TMP/status2.data" -- sh -c 'kill -TERM $$'
if [ "$s3" -eq 3 ] && [ "$s1" -eq 1 ] && [ "$RC" -eq 143 ]; then
	ok record-options-exit-status
else
	not_ok record-options-exit-status "pcl record -- sh -c 'exit 3': exit $s3 (want 3); -- false: exit $s1 (want 1);" \
		"-- sh -c 'kill -TERM \$\$': exit $RC (want 143)" "$(show "$TMP/status.err")"
fi
# (-e cpu-clock: no note about the default event besides the error line)
run nocmd "$PCL" record -e cpu-clock -o "$TMP/nocmd.data" -- "$TMP/no-such-command"
if [ "$RC" -ne 0 ] && ! crashed "$TMP/nocmd.err" "$RC" && [ "$(grep -c . "$TMP/nocmd.err")" -eq 1 ] &&
	grep -q "^pcl: .*no-such-command" "$TMP/nocmd.err"; then
	ok record-options-no-such-command
else
	not_ok record-options-no-such-command "pcl record -- /no/such/command: exit $RC (want non-zero, 127 like a shell)," \
		"want one line 'pcl: ...' naming the command; stderr:" "$(show "$TMP/nocmd.err")"
fi
run badev "$PCL" record -e task-clok -o "$TMP/badev.data" -- true
first=$(head -1 "$TMP/badev.err")
if [ "$RC" -ne 0 ] && ! crashed "$TMP/badev.err" "$RC" && [[ "$first" == "pcl: "*task-clok*task-clock* ]]; then
	ok record-options-bad-event
else
	not_ok record-options-bad-event "pcl record -e task-clok: exit $RC (want non-zero)," \
		"want a first line 'pcl: ...' naming 'task-clok' and suggesting 'task-clock'; stderr:" "$(show "$TMP/badev.err")"
fi
if [ -e "$TMP/badev.data" ] && timeout 20 perf report --stats -i "$TMP/badev.data" >/dev/null 2>&1; then
	not_ok record-options-bad-event-no-file "a bad event left a whole-looking $TMP/badev.data"
else
	ok record-options-bad-event-no-file
fi
# -m: a bigger buffer gives the same kind of file.
if rec record-options-mmap-pages m -m 64 -- "$hot" 200; then
	n=$(perf_samples "$TMP/m.data")
	if [ "${n:-0}" -ge 200 ]; then
		ok record-options-mmap-pages
	else
		not_ok record-options-mmap-pages "pcl record -m 64 -- hot 200: ${n:-no} samples (want >= 200 of ~800)"
	fi
fi
