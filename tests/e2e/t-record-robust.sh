#!/usr/bin/env bash
# pcl record when things go wrong: Ctrl-C and SIGTERM stop it with a whole
# file; SIGKILL leaves the records written so far, in a file that does not
# claim to be whole; a full disk, an unwritable path, a pid that is gone
# give one 'pcl:' line and a failure status, never a file that looks whole
# (these runs name the event, -e cpu-clock, so that no note about falling
# back from cycles comes before the error);
# an existing output is kept as FILE.old; lost records are reported.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-robust "perf is not installed"
	exit 0
fi
if ! has_record; then
	not_ok record-robust-command "'$PCL help' lists no record command"
	exit 0
fi
hot=$(workload hot) || { not_ok record-robust-workload "cannot build tests/workloads/hot.c"; exit 0; }

# whole NAME FILE TAG: ok if perf report --stats reads FILE without complaint and the file
# is whole: the header's data section holds records up to its end and the
# header lists feature sections.
whole() {
	local name=$1 f=$2 tag=$3 walk
	run_long "$tag.report" 40 perf report --stats -i "$f"
	walk=$(data_walk "$f")
	if [ "$RC" -eq 0 ] && ! complaints "$TMP/$tag.report.err" >/dev/null &&
		[ "$(walk_get "$walk" mode)" != bad ] && [ "$(walk_get "$walk" tail)" = 0 ] &&
		[ "$(walk_get "$walk" data_size)" != 0 ] && [ "$(walk_get "$walk" features)" != 0 ] &&
		[ "$(walk_get "$walk" feat_end)" = "$(walk_get "$walk" file_size)" ]; then
		ok "$name"
	else
		not_ok "$name" "perf report --stats -i FILE: exit $RC (want 0), stderr (want no complaint):" \
			"$(show "$TMP/$tag.report.err")" "FILE walked record by record: $walk" \
			"want a data size > 0 ending on a record boundary (tail=0), features > 0 ending at the file's end"
	fi
}
# looks_whole FILE TAG: true if FILE exists and perf reads it without any
# complaint (what a failed recording must not leave behind); details in
# $TMP/TAG.lw.err. --stats, as a whole file without samples is no error.
looks_whole() {
	[ -e "$1" ] || return 1
	timeout -k 5 40 perf report --stats -i "$1" >/dev/null 2>"$TMP/$2.lw.err" && ! complaints "$TMP/$2.lw.err" >/dev/null
}
# one_line NAME TAG WORDS: ok if the run TAG failed (RC != 0, no crash) and
# its stderr holds exactly one line, starting 'pcl:' and matching the
# extended regex WORDS.
one_line() {
	local name=$1 tag=$2 word=$3 n
	n=$(grep -c . "$TMP/$tag.err")
	if [ "$RC" -ne 0 ] && ! died "$TMP/$tag.err" "$RC" && [ "$n" -eq 1 ] &&
		grep -qiE "^pcl: .*($word)" "$TMP/$tag.err"; then
		ok "$name"
	else
		not_ok "$name" "exit $RC (want non-zero, no crash), $n stderr lines (want 1: 'pcl: ...' matching '$word'):" \
			"$(show "$TMP/$tag.err")"
	fi
}
# died FILE RC: true if RC says a crash (or a timeout) or FILE holds
# sanitizer output; ending by SIGINT or SIGTERM, as perf record does when
# its command did, is not a crash.
died() {
	case $2 in 124 | 132 | 134 | 135 | 136 | 137 | 139) return 0 ;; esac
	grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"
}
# pgroup_kill PGID: end what is left of a process group we started.
pgroup_kill() { kill -KILL -- "-$1" 2>/dev/null; }

# --- Ctrl-C: SIGINT to the whole process group ------------------------------------
# Job control gives the background job its own process group, with SIGINT
# not ignored, as in a terminal.
F=$TMP/int.data
set -m
"$PCL" record -o "$F" -- "$hot" 10000 >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
set +m
sleep 1
kill -INT -- "-$pid"
t0=$SECONDS
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && pgroup_kill "$pid"
wait "$pid"
RC=$?
if [ $((SECONDS - t0)) -ge 9 ] || died "$TMP/int.err" "$RC"; then
	not_ok record-robust-sigint "pcl record -- hot 10000, SIGINT to its process group after 1 s:" \
		"exit $RC (want no crash), stopped after $((SECONDS - t0)) s (want < 9); stderr:" "$(show "$TMP/int.err")"
else
	ok record-robust-sigint
	whole record-robust-sigint-file "$F" int
	read -r _ _ path nsum <<<"$(record_summary "$TMP/int.err")"
	nfile=$(perf_samples "$F")
	if [ "$path" = "$F" ] && [ "$nsum" = "$nfile" ] && [ "${nfile:-0}" -ge 100 ]; then
		ok record-robust-sigint-summary
	else
		not_ok record-robust-sigint-summary "summary path '$path' (want $F), samples '$nsum'," \
			"perf report --stats SAMPLE events '$nfile' (want equal, >= 100 for 1 s at 4000 Hz)" "$(show "$TMP/int.err")"
	fi
fi

# --- SIGTERM to pcl alone: it stops, ends its command, writes a whole file ----------
F=$TMP/term.data
"$PCL" record -o "$F" -- sleep 10 >"$TMP/term.out" 2>"$TMP/term.err" &
pid=$!
sleep 1
child=$(pgrep -P "$pid" | head -1)
kill -TERM "$pid"
t0=$SECONDS
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
wait "$pid"
RC=$?
sleep 0.2
if [ $((SECONDS - t0)) -ge 9 ] || died "$TMP/term.err" "$RC"; then
	not_ok record-robust-sigterm "pcl record -- sleep 10, SIGTERM to pcl after 1 s:" \
		"exit $RC (want no crash), stopped after $((SECONDS - t0)) s (want < 9); stderr:" "$(show "$TMP/term.err")"
else
	ok record-robust-sigterm
	whole record-robust-sigterm-file "$F" term
fi
if [ -z "$child" ]; then
	not_ok record-robust-sigterm-child "pcl had no child process 1 s after 'pcl record -- sleep 10' started"
elif kill -0 "$child" 2>/dev/null && [ "$(ps -o comm= -p "$child")" = sleep ]; then
	kill -KILL "$child"
	not_ok record-robust-sigterm-child "the command (sleep 10, pid $child) still runs after pcl ended on SIGTERM" \
		"(perf record ends its command with SIGTERM)"
else
	ok record-robust-sigterm-child
fi

# --- SIGKILL: the records written so far stay in the file -----------------------------
# 10 kHz (a fixed period, not capped by perf_event_max_sample_rate) with
# call chains: well over the buffer's wake-up mark in the 1.5 s before the
# kill, so pcl must have written many samples by then.
if hotfp=$(workload_fp hot); then
	F=$TMP/kill.data
	set -m
	"$PCL" record -g -e cpu-clock -c 100000 -o "$F" -- "$hotfp" 8000 >"$TMP/kill.out" 2>"$TMP/kill.err" &
	pid=$!
	set +m
	sleep 1.5
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	pgroup_kill "$pid"
	walk=$(data_walk "$F")
	n=$(walk_get "$walk" samples)
	if [ "$(walk_get "$walk" mode)" = nopython ]; then
		skip record-robust-sigkill "python3 is not installed"
	elif [ "${n:-0}" -ge 1000 ]; then
		ok record-robust-sigkill
	else
		not_ok record-robust-sigkill "pcl record -g -c 100000 -- hot 8000 (10 kHz), SIGKILL after 1.5 s:" \
			"the file walked record by record from its data offset: ${walk:-no file}" \
			"want >= 1000 samples of the ~15000 taken (the buffer wakes pcl every ~0.2 s)" "stderr:" "$(show "$TMP/kill.err")"
	fi
	if [ -e "$F" ]; then
		run_long killrep 40 perf report --stdio -i "$F"
		size=$(walk_get "$walk" file_size)
		doff=$(walk_get "$walk" data_offset)
		dsize=$(walk_get "$walk" data_size)
		if [ "$RC" -ne 0 ] || complaints "$TMP/killrep.err" >/dev/null ||
			{ [ -n "$dsize" ] && [ $((doff + dsize)) -lt "$size" ] && [ "$(walk_get "$walk" features)" = 0 ]; }; then
			ok record-robust-sigkill-not-whole
		else
			not_ok record-robust-sigkill-not-whole "after SIGKILL, perf report read the file without a complaint" \
				"and its header claims the data ends at $doff + $dsize of $size bytes with feature sections:" \
				"a file cut short by SIGKILL looks whole" "$walk"
		fi
		run_long killscript 40 perf script -i "$F"
		ns=$(grep -c 'cpu-clock' "$TMP/killscript.out")
		if [ "$ns" -gt 0 ] && [ "$ns" -le "${n:-0}" ]; then
			ok record-robust-sigkill-perf-reads
		else
			skip record-robust-sigkill-perf-reads "perf script shows $ns of the $n samples in the killed file (perf 6.1 cannot read its own file after SIGKILL either): $(complaints "$TMP/killscript.err" | head -2 | tr '\n' ' ')"
		fi
	fi
else
	skip record-robust-sigkill "clang is not installed (scripts/deps.sh)"
fi

# --- a full disk ------------------------------------------------------------------------
M=$TMP/mnt
mkdir -p "$M"
if mount -t tmpfs -o size=64k tmpfs "$M" 2>"$TMP/mount.err"; then
	trap 'umount "$M" 2>/dev/null; rm -rf "$TMP"' EXIT
	F=$M/full.data
	run_long full 30 "$PCL" record -g -e cpu-clock -c 100000 -o "$F" -- "$hot" 3000
	n=$(grep -c '^pcl:' "$TMP/full.err")
	if [ "$RC" -ne 0 ] && ! died "$TMP/full.err" "$RC" && [ "$n" -eq 1 ] && grep -qi '^pcl:.*space' "$TMP/full.err"; then
		ok record-robust-enospc
	else
		not_ok record-robust-enospc "pcl record -o FILE on a 64 KiB tmpfs: exit $RC (want non-zero, no crash)," \
			"$n 'pcl:' lines (want 1, saying there is no space left); stderr:" "$(show "$TMP/full.err")"
	fi
	if looks_whole "$F" full; then
		not_ok record-robust-enospc-file "perf report reads the file left on the full disk without complaint:" \
			"$(data_walk "$F")" "$(ls -l "$F")"
	else
		ok record-robust-enospc-file
	fi
	umount "$M"
	trap 'rm -rf "$TMP"' EXIT
else
	skip record-robust-enospc "cannot mount a tmpfs: $(head -1 "$TMP/mount.err")"
fi

# --- an unwritable output path: one line, and the command never runs -------------------------
run unwritable "$PCL" record -e cpu-clock -o /proc/nope/perf.data -- sh -c "touch '$TMP/ran'"
one_line record-robust-unwritable unwritable /proc/nope/perf.data
if [ -e "$TMP/ran" ]; then
	not_ok record-robust-unwritable-no-run "the command ran although the output could not be created"
else
	ok record-robust-unwritable-no-run
fi

# --- an existing output is kept as FILE.old ----------------------------------------------
F=$TMP/rot.data
echo old-content >"$F"
run rot1 "$PCL" record -o "$F" -- "$hot" 50
first=$(cksum <"$F")
run rot2 "$PCL" record -o "$F" -- "$hot" 50
if [ "$(cksum <"$F.old" 2>/dev/null)" = "$first" ] && [ "$(cksum <"$F")" != "$first" ] &&
	[ "$(data_walk "$F" | tr ' ' '\n' | grep '^mode=')" = mode=file ]; then
	ok record-robust-rotate
else
	not_ok record-robust-rotate "two 'pcl record -o F' in a row: want the first recording in F.old, a new one in F;" \
		"F.old starts '$(head -c 8 "$F.old" 2>/dev/null || echo missing)'" "$(ls -l "$TMP"/rot.data*)" "$(show "$TMP/rot2.err")"
fi
F=$TMP/rot2.data
echo old-content >"$F"
run rot3 "$PCL" record -o "$F" -- "$hot" 50
if [ "$(cat "$F.old" 2>/dev/null)" = old-content ]; then
	ok record-robust-rotate-foreign
else
	not_ok record-robust-rotate-foreign "pcl record -o F over a non-perf file F: want F moved to F.old intact;" \
		"F.old: '$(head -c 40 "$F.old" 2>/dev/null || echo missing)'" "$(show "$TMP/rot3.err")"
fi

# --- lost records ------------------------------------------------------------------------
if thr=$(workload_fp threads); then
	F=$TMP/lost.data
	run_long lost 40 "$PCL" record -m 1 -F max -g -o "$F" -- "$thr" 4 800
	walk=$(data_walk "$F")
	lr=$(walk_get "$walk" lost_records)
	lost=$(walk_get "$walk" lost)
	ls_=$(walk_get "$walk" lost_samples)
	if [ "$RC" -ne 0 ] || died "$TMP/lost.err" "$RC"; then
		not_ok record-robust-lost "pcl record -m 1 -F max -g -- threads 4 800: exit $RC; stderr:" "$(show "$TMP/lost.err")"
	elif [ "${lr:-0}" = 0 ] && [ "${ls_:-0}" = 0 ]; then
		skip record-robust-lost "nothing was lost with -m 1 -F max -g on 4 threads ($walk)"
	else
		# The warning: a line saying how many were lost.
		said=$(grep -i 'lost' "$TMP/lost.err" | grep -oE '[0-9]+' | tr '\n' ' ')
		match=0
		for x in $said; do
			[ "$x" = "$lr" ] || [ "$x" = "$lost" ] || [ "$x" = "$ls_" ] && match=1
		done
		if [ "$match" = 1 ]; then
			ok record-robust-lost
		else
			not_ok record-robust-lost "the file holds $lr PERF_RECORD_LOST records ($lost records lost), LOST_SAMPLES $ls_;" \
				"want a warning on stderr with one of these counts; numbers on 'lost' lines: '$said'" \
				"stderr:" "$(show "$TMP/lost.err")"
		fi
		perf_reads_clean record-robust-lost-stats loststats perf report --stats -i "$F"
	fi
else
	skip record-robust-lost "clang is not installed (scripts/deps.sh)"
fi

# --- pids that are not there ---------------------------------------------------------------
# A pid no process has (one that just exited and was reaped).
sh -c 'exit 0' &
gone=$!
wait "$gone"
run nopid "$PCL" record -e cpu-clock -p "$gone" -o "$TMP/nopid.data"
one_line record-robust-no-such-pid nopid "$gone"
if looks_whole "$TMP/nopid.data" nopid; then
	not_ok record-robust-no-such-pid-file "a whole-looking file was left by a recording that could not attach:" "$(ls -l "$TMP/nopid.data")"
else
	ok record-robust-no-such-pid-file
fi
# A pid that has exited but not been reaped (a zombie): its /proc entry is
# still there, its task is gone.
sh -c 'sleep 0 & exec sleep 5' &
zparent=$!
sleep 0.3
zombie=$(pgrep -P "$zparent" | head -1)
if [ -n "$zombie" ] && [ "$(ps -o stat= -p "$zombie" | cut -c1)" = Z ]; then
	run zombie "$PCL" record -e cpu-clock -p "$zombie" -o "$TMP/zombie.data"
	one_line record-robust-exited-pid zombie "$zombie|gone|exited|no such process"
	if looks_whole "$TMP/zombie.data" zombie; then
		not_ok record-robust-exited-pid-file "a whole-looking file was left by a recording that could not attach:" \
			"$(ls -l "$TMP/zombie.data")"
	else
		ok record-robust-exited-pid-file
	fi
else
	skip record-robust-exited-pid "could not make a zombie process"
fi
kill "$zparent" 2>/dev/null
wait "$zparent" 2>/dev/null
# Attach to processes that exit around the time pcl attaches: whatever
# wins the race, pcl fails with one line or ends with a whole file.
bad=()
for d in 0.02 0.05 0.1 0.2 0.3; do
	sleep "$d" &
	p=$!
	F=$TMP/race-$d.data
	run race "$PCL" record -e cpu-clock -p "$p" -o "$F"
	if died "$TMP/race.err" "$RC"; then
		bad+=("target living $d s: exit $RC (timeout or crash): $(head -3 "$TMP/race.err")")
	elif [ "$RC" -ne 0 ]; then
		if [ "$(grep -c . "$TMP/race.err")" -ne 1 ] || ! grep -q '^pcl:' "$TMP/race.err"; then
			bad+=("target living $d s: exit $RC with stderr (want one 'pcl:' line):" "$(show "$TMP/race.err")")
		elif looks_whole "$F" race; then
			bad+=("target living $d s: exit $RC but a whole-looking file $F is left")
		fi
	else
		timeout -k 5 40 perf report --stats -i "$F" >/dev/null 2>"$TMP/race.rep"
		r=$?
		if [ $r -ne 0 ] || complaints "$TMP/race.rep" >/dev/null; then
			bad+=("target living $d s: exit 0 but perf report complains (exit $r):" "$(show "$TMP/race.rep")")
		fi
	fi
	wait "$p" 2>/dev/null
done
if [ ${#bad[@]} -eq 0 ]; then
	ok record-robust-pid-exits-race
else
	not_ok record-robust-pid-exits-race "pcl record -p PID of a 'sleep D' started just before:" "${bad[@]}"
fi
# -p A,B where A ends first: A's pidfd (and its events' fds) then poll ready
# for ever; pcl must neither spin on them nor miss the signal that ends the
# run (a ppoll that returns at once runs no handler). record, stat and
# trace share that loop; top (whose ring fds hang up the same way) has its
# own. Each gets 3 s with B alive, then SIGINT.
for cmd in record stat trace top; do
	want=130
	case $cmd in
	record) args=(record -e cpu-clock -o "$TMP/early.data") ;;
	stat) args=(stat -e task-clock) ;;
	trace) args=(trace -s) ;;
	top) args=(top --stdio -e cpu-clock -d 1) want=0 ;;
	esac
	sleep 1 &
	a=$!
	sleep 60 &
	b=$!
	"$PCL" "${args[@]}" -p "$a,$b" >"$TMP/early.out" 2>"$TMP/early.err" &
	q=$!
	sleep 3
	# user + system ticks of pcl over those 3 s (a spin would be ~3 s of them)
	ticks=$(awk '{ print $14 + $15 }' "/proc/$q/stat" 2>/dev/null)
	hz=$(getconf CLK_TCK)
	kill -INT "$q" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$q" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$q" 2>/dev/null; then
		kill -KILL "$q"
		wait "$q" 2>/dev/null
		not_ok "record-robust-one-pid-ends-$cmd" "pcl $cmd -p A,B, A ended: still running 5 s after SIGINT" \
			"(it used $ticks ticks of CPU in 3 s, at $hz a second)" "$(show "$TMP/early.err")"
	elif [ -z "$ticks" ] || [ "$ticks" -gt "$hz" ]; then
		wait "$q" 2>/dev/null
		not_ok "record-robust-one-pid-ends-$cmd" "pcl $cmd -p A,B, A ended: ${ticks:-?} ticks of CPU in 3 s" \
			"(want under one second's, $hz: it spins on the ended process's fds)"
	else
		wait "$q"
		rc=$?
		# (as perf, pcl ends by the signal it got, once its output is
		# whole; top, as perf top, ends with 0)
		if [ "$rc" -ne "$want" ] || grep -qE 'AddressSanitizer|runtime error:' "$TMP/early.err"; then
			not_ok "record-robust-one-pid-ends-$cmd" "pcl $cmd -p A,B ended by SIGINT: exit $rc (want $want)" \
				"$(show "$TMP/early.err")"
		else
			ok "record-robust-one-pid-ends-$cmd"
		fi
	fi
	kill "$b" 2>/dev/null
	wait "$a" "$b" 2>/dev/null
done

# -p PID whose main thread leaves first (pthread_exit at 1 s) while a
# worker spins on to 3.5 s: the events of the main thread hang up, the
# worker's still write into the same per-CPU rings, so every event fd is
# polled (perf's way): a ring drained only by the 100 ms timer overflows at
# -F 1000 with DWARF stacks (before: a third of the samples lost). And the
# run lasts until the process ends.
me=$(workload main-exits) || { not_ok record-robust-main-exits "cannot build tests/workloads/main-exits.c"; exit 0; }
"$me" 1000 3500 &
mp=$!
sleep 0.1
t0=$(date +%s%N)
"$PCL" record -e cpu-clock -F 1000 --call-graph dwarf -p "$mp" -o "$TMP/me.data" \
	>"$TMP/mainexits.out" 2>"$TMP/mainexits.err" &
rp=$!
# the main thread must still run once pcl has attached, or nothing hangs up
sleep 0.5
mstate=$(awk '{ print $3 }' "/proc/$mp/task/$mp/stat" 2>/dev/null)
wait "$rp"
RC=$?
el=$((($(date +%s%N) - t0) / 1000000))
wait "$mp" 2>/dev/null
lost=$(sed -n 's/^pcl: warning: lost \([0-9]*\) samples.*/\1/p' "$TMP/mainexits.err")
got=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/mainexits.err")
if [ -z "$mstate" ] || [ "$mstate" = Z ]; then
	skip record-robust-main-exits "the main thread had left 0.5 s in, before the test could see pcl attached (state '$mstate')"
elif [ "$RC" -ne 0 ] || crashed "$TMP/mainexits.err" "$RC" || [ -z "$got" ]; then
	not_ok record-robust-main-exits "pcl record -p PID: exit $RC" "$(show "$TMP/mainexits.err")"
elif [ "$el" -lt 3000 ]; then
	not_ok record-robust-main-exits "pcl record -p PID ended after $el ms; the worker ran to 3500 ms"
elif [ -n "$lost" ] && [ $((lost * 20)) -gt "$got" ]; then
	not_ok record-robust-main-exits "lost $lost samples of $((lost + got)) after the main thread left (want under 5%):" \
		"$(show "$TMP/mainexits.err")"
else
	ok record-robust-main-exits
fi

# -p TID of a thread that is not its process's leader names the process, as
# in perf: the events go on every thread, and the run lasts until the
# process ends (the worker spins 2 s, the main thread lives 4 s).
"$me" 4000 2000 &
mp=$!
sleep 0.1
wt=$(ls "/proc/$mp/task" 2>/dev/null | grep -vx "$mp" | head -1)
if [ -z "$wt" ]; then
	skip record-robust-pid-is-tid "no worker thread found in /proc/$mp/task"
else
	t0=$(date +%s%N)
	run_long pidtid 30 "$PCL" stat -e task-clock -p "$wt"
	el=$((($(date +%s%N) - t0) / 1000000))
	if [ "$RC" -ne 0 ] || crashed "$TMP/pidtid.err" "$RC"; then
		not_ok record-robust-pid-is-tid "pcl stat -p TID: exit $RC" "$(show "$TMP/pidtid.err")"
	elif [ "$el" -lt 3000 ]; then
		not_ok record-robust-pid-is-tid "pcl stat -p TID ended after $el ms with its thread; the process lived 4000 ms"
	else
		ok record-robust-pid-is-tid
	fi
fi
wait "$mp" 2>/dev/null
exit 0
