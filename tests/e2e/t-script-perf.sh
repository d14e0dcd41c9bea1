#!/usr/bin/env bash
# pcl script prints what perf script prints, line for line, on the same
# file: files recorded by perf and by pcl record, with and without -g, of
# a CPU-bound workload (hot), a threaded one (threads: samples of two
# threads interleaved in time order), a forking and exec'ing one (forks),
# one that dlopen()s its library (dlopen) and one with kernel time
# (kernel-time); -F field selections; --show-task-events and
# --show-mmap-events on the forking workload, --show-switch-events on a
# --switch-events recording; a pipe-mode stream on a pipe, a
# zstd-compressed (perf record -z) file, a two-event file; a tracepoint
# recording, payloads included (t-script-tracepoint.sh covers many more
# print fmts); and FlameGraph: pcl's -g output folds (stackcollapse-perf.pl,
# or an awk folding when FlameGraph is not installed) to the same stacks as
# perf's.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip script-perf "perf is not installed"
	exit 0
fi
if ! has_cmd script; then
	not_ok script-perf-command "'$PCL help' lists no script command (and 'pcl help script' fails)"
	exit 0
fi
have_pcl_record=1
has_record || have_pcl_record=0
# died FILE RC: true if RC says killed by a signal (perf's own exit status
# for an error is 255, no signal) or a timeout, or FILE holds sanitizer output.
died() {
	[ "$2" -eq 124 ] || { [ "$2" -gt 128 ] && [ "$2" -le 192 ]; } ||
		grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"
}

# script_pair TAG FILE ARGS...: perf script ARGS -i FILE into
# $TMP/TAG.perf.{out,err}, pcl script likewise into $TMP/TAG.pcl.*; exit
# statuses in PRC and CRC.
script_pair() {
	local tag=$1 f=$2
	shift 2
	run_long "$tag.perf" 60 perf script "$@" -i "$f"
	PRC=$RC
	run_long "$tag.pcl" 60 "$PCL" script "$@" -i "$f"
	CRC=$RC
}
# same NAME TAG DESC [FILTER]: ok if pcl's stdout of script_pair TAG equals
# perf's line for line (both through the sed script FILTER if given), pcl
# exits 0 as perf did, and says nothing on stderr when perf says nothing.
same() {
	local name=$1 tag=$2 desc=$3 filter=${4:-}
	local P=$TMP/$tag.perf C=$TMP/$tag.pcl
	if [ "$PRC" -ne 0 ] || [ ! -s "$P.out" ]; then
		not_ok "$name" "oracle: perf script $desc: exit $PRC, $(wc -l <"$P.out") lines" "$(show "$P.err")"
		return
	fi
	if [ "$CRC" -ne 0 ] || crashed "$C.err" "$CRC"; then
		not_ok "$name" "pcl script $desc: exit $CRC (want 0, as perf); stderr:" "$(show "$C.err")" \
			"stdout:" "$(show "$C.out" 10)"
		return
	fi
	# Deliberate: pcl names a PLT slot NAME@plt in every file; perf 6.1 does
	# so only at times and otherwise gives the slot to _init (+offset), in
	# its own files as in pcl's and in streams. Both become 'PLT'.
	local plt='s/ [^ ]+@plt(\+0x[0-9a-f]+)? / PLT /; s/ _init(\+0x[0-9a-f]+)? / PLT /'
	sed -E "$plt${filter:+; $filter}" "$P.out" >"$P.cmp"
	sed -E "$plt${filter:+; $filter}" "$C.out" >"$C.cmp"
	if ! cmp -s "$P.cmp" "$C.cmp"; then
		not_ok "$name" "pcl script $desc: differs from perf's ($(wc -l <"$P.cmp") lines, pcl $(wc -l <"$C.cmp")):" \
			"$(diff -u --label perf --label pcl "$P.cmp" "$C.cmp" | head -40)"
	elif [ ! -s "$P.err" ] && [ -s "$C.err" ]; then
		not_ok "$name" "pcl script $desc: stdout as perf's, but stderr has lines (perf's has none):" "$(show "$C.err")"
	else
		ok "$name"
	fi
}
# record BY CASE ARGS... -- CMD...: record_to (lib.sh) for this suite.
record() { record_to script-perf "$@"; }

# --- workloads ------------------------------------------------------------------
comparison_workloads script-perf || exit 0
writes=$(workload writes) || { not_ok script-perf-workload "cannot build tests/workloads/writes.c"; exit 0; }

# --- the default fields, with and without call chains ------------------------------
for wl in hot threads forks dlopen ktime; do
	for g in "" -g; do
		for by in perf pcl; do
			id=$wl-$by${g:+-g}
			# perf's side-band thread for BPF events costs a second a
			# recording: once with it (perf's default file), then without.
			bpf=
			[ $by = perf ] && [ "$id" != hot-perf ] && bpf=--no-bpf-event
			# shellcheck disable=SC2086 # CMD holds the command and its arguments
			record $by "$id" $bpf -F 4000 $g -o "$TMP/$id.data" -- ${CMD[$wl]} || continue
			script_pair "$id" "$TMP/$id.data"
			same "script-perf-$id" "$id" "-i $id.data"
		done
	done
done

# --- -F field selections ------------------------------------------------------------
# A file's samples have no CPU: 'cpu' is an error for both (perf: exit 255).
for by in perf pcl; do
	for g in "" -g; do
		id=hot-$by${g:+-g}
		[ -s "$TMP/$id.data" ] || continue
		for fields in comm,tid,time,ip,sym,dso comm,pid,tid,time,event,period ip,sym,symoff,dso comm,tid,ip,sym,dso,period; do
			script_pair "$id-F-$fields" "$TMP/$id.data" -F "$fields"
			same "script-perf-$id-F-$fields" "$id-F-$fields" "-F $fields -i $id.data"
		done
	done
	id=hot-$by
	[ -s "$TMP/$id.data" ] || continue
	script_pair "$id-F-cpu" "$TMP/$id.data" -F comm,cpu
	n=$(grep -c . "$TMP/$id-F-cpu.pcl.err")
	if [ "$PRC" -eq 0 ]; then
		skip "script-perf-$id-F-cpu" "perf script -F comm,cpu accepts a file without CPUs (exit 0)"
	elif [ "$CRC" -ne 0 ] && ! died "$TMP/$id-F-cpu.pcl.err" "$CRC" && [ "$n" -eq 1 ] &&
		[ ! -s "$TMP/$id-F-cpu.pcl.out" ]; then
		ok "script-perf-$id-F-cpu"
	else
		not_ok "script-perf-$id-F-cpu" "pcl script -F comm,cpu on $id.data (samples without CPU):" \
			"exit $CRC (want non-zero, as perf's $PRC), $n stderr lines (want 1), stdout $(wc -l <"$TMP/$id-F-cpu.pcl.out") lines (want 0)" \
			"stderr:" "$(show "$TMP/$id-F-cpu.pcl.err")" "perf's stderr:" "$(show "$TMP/$id-F-cpu.perf.err")"
	fi
done

# --- side-band events: tasks, maps, switches ---------------------------------------
for by in perf pcl; do
	id=forks-$by
	[ -s "$TMP/$id.data" ] || continue
	script_pair "$id-task" "$TMP/$id.data" --show-task-events
	same "script-perf-$id-task-events" "$id-task" "--show-task-events -i $id.data"
	script_pair "$id-mmap" "$TMP/$id.data" --show-mmap-events
	same "script-perf-$id-mmap-events" "$id-mmap" "--show-mmap-events -i $id.data"
	script_pair "$id-both" "$TMP/$id.data" --show-task-events --show-mmap-events -F comm,pid,tid,time,event,ip,sym
	same "script-perf-$id-task-mmap-fields" "$id-both" \
		"--show-task-events --show-mmap-events -F comm,pid,tid,time,event,ip,sym -i $id.data"
done
id="dlopen-perf"
if [ -s "$TMP/$id.data" ]; then
	# the library's MMAP2, mid-run
	script_pair "$id-mmap" "$TMP/$id.data" --show-mmap-events
	same "script-perf-$id-mmap-events" "$id-mmap" "--show-mmap-events -i $id.data"
fi
for by in perf pcl; do
	id=switch-$by
	bpf=
	[ $by = perf ] && bpf=--no-bpf-event
	if [ $by = pcl ] && [ $have_pcl_record = 1 ] && ! "$PCL" help record 2>&1 | grep -q -- --switch-events; then
		skip "script-perf-$id" "pcl record has no --switch-events"
		continue
	fi
	# writes 40 20: a sleep between writes, so the task switches out and in.
	record $by "$id" $bpf --switch-events -F 4000 -o "$TMP/$id.data" -- "$writes" 40 20 || continue
	script_pair "$id" "$TMP/$id.data" --show-switch-events
	same "script-perf-$id-switch-events" "$id" "--show-switch-events -i $id.data"
done

# --- pipe mode, compressed records, two events -------------------------------------------
# A pipe-mode stream, saved, then read by both from a pipe (cat FILE | script -i -).
timeout -k 5 60 perf record -q --no-bpf-event -F 4000 -o - -- "$hot" 300 >"$TMP/pipe.data" 2>"$TMP/rec-pipe.err"
RC=$?
if [ "$RC" -ne 0 ] || [ ! -s "$TMP/pipe.data" ]; then
	not_ok script-perf-pipe "oracle: perf record -o - failed (exit $RC)" "$(show "$TMP/rec-pipe.err")"
else
	timeout -k 5 60 perf script -i - <"$TMP/pipe.data" >"$TMP/pipe.perf.out" 2>"$TMP/pipe.perf.err"
	PRC=$?
	# shellcheck disable=SC2002 # a pipe, not a file, on stdin
	cat "$TMP/pipe.data" | timeout -k 5 60 "$PCL" script -i - >"$TMP/pipe.pcl.out" 2>"$TMP/pipe.pcl.err"
	CRC=$?
	same script-perf-pipe-stdin pipe "-i - (a pipe-mode stream on a pipe)"
	script_pair pipe-file "$TMP/pipe.data"
	same script-perf-pipe-file pipe-file "-i pipe.data (a pipe-mode stream in a file)"
fi
if record perf zstd --no-bpf-event -z -F 4000 -o "$TMP/zstd.data" -- "$hot" 300; then
	if ! perf report --header-only -i "$TMP/zstd.data" 2>/dev/null | grep -q '^# compressed'; then
		skip script-perf-zstd "this perf wrote no compressed records with -z (no zstd support)"
	else
		script_pair zstd "$TMP/zstd.data"
		same script-perf-zstd zstd "-i zstd.data (perf record -z)"
	fi
fi
for by in perf pcl; do
	bpf=
	[ $by = perf ] && bpf=--no-bpf-event
	# shellcheck disable=SC2086
	record $by two-$by $bpf -e cpu-clock,task-clock -F 4000 -o "$TMP/two-$by.data" -- "$hot" 300 || continue
	script_pair two-$by "$TMP/two-$by.data"
	same script-perf-two-events-$by two-$by "-i two-$by.data (-e cpu-clock,task-clock)"
done

# --- a tracepoint -------------------------------------------------------------------
tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing
for tp in syscalls:sys_enter_write sched:sched_switch; do
	if [ ! -d "$tracefs/events/${tp%%:*}/${tp#*:}" ]; then
		skip "script-perf-tracepoint-${tp#*:}" "tracepoint $tp not found under $tracefs/events"
		continue
	fi
	for by in perf pcl; do
		for g in "" -g; do
			id=tp-${tp#*:}-$by${g:+-g}
			bpf=
			[ $by = perf ] && bpf=--no-bpf-event
			# shellcheck disable=SC2086
			record $by "$id" $bpf $g -e "$tp" -o "$TMP/$id.data" -- "$writes" 200 20 || continue
			script_pair "$id" "$TMP/$id.data"
			same "script-perf-$id" "$id" "-i $id.data"
		done
	done
done

# --- FlameGraph -----------------------------------------------------------------------
if ! hotfp=$(workload_fp hot); then
	skip script-perf-flamegraph "clang is not installed (scripts/deps.sh)"
else
	for by in perf pcl; do
		id=fg-$by
		bpf=
		[ $by = perf ] && bpf=--no-bpf-event
		# shellcheck disable=SC2086
		record $by "$id" $bpf -g -F 4000 -o "$TMP/$id.data" -- "$hotfp" 300 || continue
		script_pair "$id" "$TMP/$id.data"
		fold <"$TMP/$id.perf.out" >"$TMP/$id.perf.folded"
		fold <"$TMP/$id.pcl.out" >"$TMP/$id.pcl.folded"
		want="$(basename "$hotfp");__libc_start_call_main;main;outer;middle;hot_leaf"
		if ! grep -q "^$want [0-9]" "$TMP/$id.perf.folded"; then
			not_ok "script-perf-$id-flamegraph" "oracle: perf script's output of $id.data does not fold to '$want N':" \
				"$(sort -k2 -nr "$TMP/$id.perf.folded" | head -5)"
		elif [ "$CRC" -ne 0 ] || crashed "$TMP/$id.pcl.err" "$CRC"; then
			not_ok "script-perf-$id-flamegraph" "pcl script -i $id.data: exit $CRC (want 0)" "$(show "$TMP/$id.pcl.err")"
		else
			diff_or_ok "script-perf-$id-flamegraph" "$TMP/$id.perf.folded" "$TMP/$id.pcl.folded" \
				"perf script | fold" "pcl script | fold"
		fi
	done
fi
