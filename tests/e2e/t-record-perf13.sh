#!/usr/bin/env bash
# pcl record's options from issue 13, each against perf record 6.1 on the
# same workload or the same file: --switch-output (signal, size, time) and
# --switch-max-files, --timestamp-filename, -z (zstd records that perf
# reads), --all-user/--all-kernel, --filter, --overwrite, -B, --per-thread,
# --user-regs, --max-size. Every file pcl writes here is read by perf.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-perf13 "perf is not installed"
	exit 0
fi
spin=$(workload spin) || { not_ok record-perf13-workload "cannot build tests/workloads/spin.c"; exit 0; }

# perf_comms FILE: "COMM DSO" rows of perf report on FILE, sorted; perf's
# stderr in $TMP/perf_comms.err.
perf_comms() {
	perf report -i "$1" --stdio --sort comm,dso 2>"$TMP/perf_comms.err" | grep -v '^#' | grep -v '^$' |
		awk '{ print $2, $3 }' | sort
}
# dumped ERRFILE: the files named by "[ pcl record: Dump FILE ]" lines.
dumped() { sed -n 's/^\[ pcl record: Dump \(.*\) \]$/\1/p' "$1"; }
# wait_file FILE: until pcl record has created FILE (its signal handlers are then set), 10 s at most
wait_file() {
	local i
	for i in $(seq 100); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
}

# --- --switch-output (signal): SIGUSR2 finishes a file, each is whole ----------------
D=$TMP/sw
mkdir -p "$D"
"$PCL" record -e cpu-clock -F 999 --switch-output -o "$D/sw.data" -- "$spin" 1600 \
	>"$TMP/sw.out" 2>"$TMP/sw.err" &
pid=$!
wait_file "$D/sw.data"
sleep 0.3
kill -USR2 $pid
sleep 0.5
kill -USR2 $pid
wait $pid
rc=$?
files=$(ls "$D" | grep -c '^sw\.data\.[0-9]\{16\}$')
if [ "$rc" -ne 0 ] || [ "$files" -ne 3 ] || [ -e "$D/sw.data" ] ||
	[ "$(dumped "$TMP/sw.err" | wc -l)" -ne 3 ] ||
	! grep -q '^\[ pcl record: dump data: Woken up [0-9]* times \]$' "$TMP/sw.err" ||
	! grep -q '^\[ pcl record: Captured and wrote .* MB .*/sw\.data\.<timestamp> ' "$TMP/sw.err"; then
	not_ok record-switch-output-signal "exit $rc (want 0), $files files sw.data.<16 digits> (want 3: two SIGUSR2 and the end)" \
		"$(ls -l "$D")" "$(show "$TMP/sw.err")"
else
	ok record-switch-output-signal
fi
# every file: perf reads it, and sees spin in it (a file after a switch
# gets the workload's comm and maps synthesized again, as perf's does)
bad=
for f in $(dumped "$TMP/sw.err"); do
	rows=$(perf_comms "$f")
	if ! grep -q '^spin spin$' <<<"$rows" || complaints "$TMP/perf_comms.err" >/dev/null; then
		bad="$bad $f: $(echo $rows) $(head -3 "$TMP/perf_comms.err")"
	fi
done
[ -z "$bad" ] && ok record-switch-output-perf-reads || not_ok record-switch-output-perf-reads "want 'spin spin' in perf report of each:" "$bad"

# --- --switch-output: a SIGUSR2 sent just before a stop still switches --------------
# perf's daemon.sh sends two signals and a stop in quick succession and wants
# three files: the second signal comes while the first switch runs (SIGUSR2
# blocked then), the stop right after it. Same sequence for perf and pcl.
sig_stop() { # TOOL: the number of files left
	local d=$TMP/sigstop-$1 pid i
	mkdir -p "$d"
	mkfifo "$d/ctl" "$d/ack"
	(cd "$d" && exec $2 record -e cpu-clock --switch-output --control=fifo:ctl,ack \
		-o s.data -- sleep 30 >out 2>&1) &
	pid=$!
	exec 8<>"$d/ack"
	for i in $(seq 100); do
		timeout 0.5 bash -c 'printf ping >"$1"' - "$d/ctl" && break
		sleep 0.05
	done
	read -r -t 5 -u 8 _
	kill -USR2 $pid
	sleep 0.02
	kill -USR2 $pid
	printf stop >"$d/ctl"
	exec 8<&-
	wait $pid
	ls "$d" | grep -c '^s\.data\.'
}
pcl_n=$(sig_stop pcl "$PCL")
perf_n=$(sig_stop perf perf)
if [ "$pcl_n" = 3 ] && [ "$perf_n" = 3 ]; then
	ok record-switch-output-signal-then-stop
else
	not_ok record-switch-output-signal-then-stop "files: pcl $pcl_n, perf $perf_n (want 3: two signals and the end)" \
		"$(cat "$TMP/sigstop-pcl/out")"
fi

# --- --switch-output=SIZE and --switch-max-files: the newest N files stay ------------
rm -f "$D"/*
run_long sz 30 "$PCL" record -e cpu-clock -F 999 --switch-output=6K --switch-max-files 2 \
	-o "$D/s.data" -- "$spin" 2500
n_dump=$(dumped "$TMP/sz.err" | wc -l)
left=$(ls "$D" | grep -c '^s\.data\.')
newest=$(dumped "$TMP/sz.err" | tail -2 | xargs -n1 basename | sort | tr '\n' ' ')
kept=$(ls "$D" | sort | tr '\n' ' ')
if [ "$RC" -eq 0 ] && [ "$n_dump" -ge 3 ] && [ "$left" -eq 2 ] && [ "$newest" = "$kept" ]; then
	ok record-switch-output-size-max-files
else
	not_ok record-switch-output-size-max-files "exit $RC, $n_dump dumps (want >= 3), files left: $kept (want the last two dumped: $newest)" \
		"$(show "$TMP/sz.err")"
fi
# a size switch happens after the drain that crossed it: each file but the
# last holds at least the size's worth of records
small=
for f in $(dumped "$TMP/sz.err" | head -n -1); do
	[ -e "$f" ] || continue
	sz=$(stat -c %s "$f")
	[ "$sz" -ge 6144 ] || small="$small $f=$sz"
done
[ -z "$small" ] && ok record-switch-output-size-big-enough || not_ok record-switch-output-size-big-enough "files below 6K:$small"

# --- --switch-output=TIME: perf's and pcl's file counts for the same run --------------
rm -f "$D"/*
run_long tm 30 "$PCL" record -e cpu-clock --switch-output=1s -o "$D/t.data" -- sleep 2.5
pcl_n=$(ls "$D" | grep -c '^t\.data\.[0-9]\{16\}$')
rm -f "$D"/*
run_long ptm 30 perf record -e cpu-clock --switch-output=1s -o "$D/t.data" -- sleep 2.5
perf_n=$(ls "$D" | grep -c '^t\.data\.[0-9]\{16\}$')
if [ "$pcl_n" -eq "$perf_n" ] && [ "$pcl_n" -eq 3 ]; then
	ok record-switch-output-time
else
	not_ok record-switch-output-time "files: pcl $pcl_n, perf $perf_n (want 3 both: at 1 s, 2 s, and the end)" "$(show "$TMP/tm.err")"
fi

# --- bad values: a one-line error and the usage status, as perf refuses them ----------
for v in 12 1x 5q; do
	run bad "$PCL" record --switch-output="$v" -o "$D/b.data" -- true
	if [ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && [ ! -e "$D/b.data" ] &&
		! perf record --switch-output="$v" -o "$D/b.data" -- true >/dev/null 2>&1; then
		ok "record-switch-output-bad-$v"
	else
		not_ok "record-switch-output-bad-$v" "exit $RC (want 2), stderr:" "$(show "$TMP/bad.err")"
	fi
done
run pipe "$PCL" record --switch-output -o - -- true
[ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/pipe.err")" -eq 1 ] && ok record-switch-output-pipe ||
	not_ok record-switch-output-pipe "exit $RC (want 2: no file to switch)" "$(show "$TMP/pipe.err")"

# --- --timestamp-filename: the one file gets its timestamp --------------------------
rm -f "$D"/*
run ts "$PCL" record -e cpu-clock --timestamp-filename -o "$D/x.data" -- "$spin" 100
f=$(dumped "$TMP/ts.err")
if [ "$RC" -eq 0 ] && [ -n "$f" ] && [ -s "$f" ] && [ ! -e "$D/x.data" ] &&
	grep -q '^spin spin$' <<<"$(perf_comms "$f")"; then
	ok record-timestamp-filename
else
	not_ok record-timestamp-filename "exit $RC, files: $(ls "$D")" "$(show "$TMP/ts.err")"
fi

# --- SIGUSR2 without --switch-output: ignored, as perf does --------------------------
"$PCL" record -e cpu-clock -o "$D/u.data" -- "$spin" 600 >/dev/null 2>"$TMP/u.err" &
pid=$!
wait_file "$D/u.data"
sleep 0.2
kill -USR2 $pid
wait $pid
rc=$?
[ "$rc" -eq 0 ] && [ -s "$D/u.data" ] && ok record-sigusr2-ignored ||
	not_ok record-sigusr2-ignored "exit $rc (want 0: SIGUSR2 does not stop pcl record)" "$(show "$TMP/u.err")"

# --- -z: perf reads pcl's compressed file as pcl does ---------------------------------
# perf's own test record+zstd_comp_decomp.sh: the header line and the stats line
run_long z 40 "$PCL" record -q -z -g -F 5000 -o "$TMP/z.data" -- "$spin" 800
if [ "$RC" -ne 0 ]; then
	not_ok record-z "pcl record -z: exit $RC" "$(show "$TMP/z.err")"
else
	grep -q -- '-z, --compression-level' <<<"$("$PCL" record -h 2>&1)" && ok record-z-help ||
		not_ok record-z-help "'pcl record -h' lacks '-z, --compression-level' (perf's test greps it)"
	for r in perf "$PCL"; do
		"$r" report -i "$TMP/z.data" --header --stats 2>/dev/null |
			grep -E "(# compressed : Zstd,)|(COMPRESSED events:)" >"$TMP/z.$(basename "$r").hdr"
	done
	if [ "$(wc -l <"$TMP/z.perf.hdr")" -eq 2 ] && grep -q '^# compressed : Zstd, level = 1, ratio = [1-9]' "$TMP/z.perf.hdr" &&
		diff -q "$TMP/z.perf.hdr" "$TMP/z.pcl.hdr" >/dev/null; then
		ok record-z-header-stats
	else
		not_ok record-z-header-stats "perf and pcl report --header --stats on pcl's -z file:" \
			"$(cat "$TMP/z.perf.hdr")" "---" "$(cat "$TMP/z.pcl.hdr")"
	fi
	# perf inject writes the records decompressed: perf reads both the same
	perf inject -i "$TMP/z.data" -o "$TMP/z.decomp" 2>/dev/null
	perf script -i "$TMP/z.data" -F comm,tid,time,ip,sym 2>"$TMP/zs.err" >"$TMP/zs.comp"
	perf script -i "$TMP/z.decomp" -F comm,tid,time,ip,sym 2>/dev/null >"$TMP/zs.decomp"
	n=$(grep -c . "$TMP/zs.comp")
	if [ "$n" -gt 100 ] && cmp -s "$TMP/zs.comp" "$TMP/zs.decomp" && ! complaints "$TMP/zs.err" >/dev/null; then
		ok record-z-perf-script
	else
		not_ok record-z-perf-script "perf script of pcl's -z file ($n lines) and of perf inject's decompressed copy differ, or perf complained" \
			"$(diff "$TMP/zs.comp" "$TMP/zs.decomp" | head -5)" "$(show "$TMP/zs.err" 5)"
	fi
	# and pcl's report of it is perf's (rows of equal overhead in any order)
	perf report -i "$TMP/z.data" --stdio --no-children -g none --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep '%' >"$TMP/zr.perf"
	"$PCL" report -i "$TMP/z.data" --stdio --no-children -g none --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep '%' >"$TMP/zr.pcl"
	if [ -s "$TMP/zr.perf" ] && diff -q <(awk '{print $1, $2, $3, $NF}' "$TMP/zr.perf" | sort) <(awk '{print $1, $2, $3, $NF}' "$TMP/zr.pcl" | sort) >/dev/null; then
		ok record-z-report-same
	else
		not_ok record-z-report-same "perf report vs pcl report on pcl's -z file:" "$(diff "$TMP/zr.perf" "$TMP/zr.pcl")"
	fi
	# the ratio pcl says is the file's
	grep -q 'compressed (original [0-9.]* MB, ratio is [0-9.]*) \]$' "$TMP/z.err" 2>/dev/null ||
		"$PCL" record -z -e cpu-clock -o "$TMP/z2.data" -- "$spin" 100 2>"$TMP/z2.err" >/dev/null
	grep -q ', compressed (original [0-9.]* MB, ratio is [0-9.]*) \]$' "$TMP/z2.err" "$TMP/z.err" 2>/dev/null &&
		ok record-z-summary || not_ok record-z-summary "no ', compressed (original X MB, ratio is R)' in the summary" "$(show "$TMP/z2.err")"
fi
run zbad "$PCL" record -zfast -o "$TMP/zb.data" -- true
[ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/zbad.err")" -eq 1 ] && ok record-z-bad ||
	not_ok record-z-bad "exit $RC (want 2, one line)" "$(show "$TMP/zbad.err")"

# --- --all-user / --all-kernel: the attr bits perf sets ----------------------------
for m in all-user all-kernel; do
	perf record -q -e cpu-clock --$m -o "$TMP/perf-$m.data" -- true 2>/dev/null
	"$PCL" record -q -e cpu-clock --$m -o "$TMP/pcl-$m.data" -- true 2>/dev/null
	want=$(evlist_attr "$TMP/perf-$m.data" | grep -E '^exclude_(user|kernel)=')
	got=$(evlist_attr "$TMP/pcl-$m.data" | grep -E '^exclude_(user|kernel)=')
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "record-$m"
	else
		not_ok "record-$m" "perf: $(echo $want), pcl: $(echo $got)"
	fi
done
run both "$PCL" record --all-user --all-kernel -o "$TMP/both.data" -- true
[ "$RC" -eq 2 ] && ok record-all-user-kernel-both || not_ok record-all-user-kernel-both "exit $RC (want 2)" "$(show "$TMP/both.err")"
# a kernel-only recording of a user-space loop has no user sample
run ak "$PCL" record -e cpu-clock --all-kernel -o "$TMP/ak.data" -- "$spin" 300
if perf script -i "$TMP/ak.data" -F ip 2>/dev/null | awk '{ if ($1 !~ /^ffff/) bad++ } END { exit bad > 0 }'; then
	ok record-all-kernel-samples
else
	not_ok record-all-kernel-samples "user addresses in an --all-kernel file"
fi

# --- --filter: the same tracepoint samples as perf's ---------------------------------
if perf record -q -e raw_syscalls:sys_enter --filter 'id == 1' -o "$TMP/pf.data" -- dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null; then
	"$PCL" record -q -e raw_syscalls:sys_enter --filter 'id == 1' -o "$TMP/cf.data" -- dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
	want=$(perf script -i "$TMP/pf.data" -F comm,trace 2>/dev/null | awk '{print $1, $3}' | sort | uniq -c)
	got=$(perf script -i "$TMP/cf.data" -F comm,trace 2>/dev/null | awk '{print $1, $3}' | sort | uniq -c)
	all=$("$PCL" record -q -e raw_syscalls:sys_enter -o "$TMP/cf2.data" -- dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null &&
		perf script -i "$TMP/cf2.data" -F trace 2>/dev/null | awk '$2 != "1" { n++ } END { print n + 0 }')
	if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$all" -gt 0 ]; then
		ok record-filter
	else
		not_ok record-filter "perf: $want" "pcl: $got" "unfiltered non-write syscalls: $all (want > 0)"
	fi
	# two filters on one event are joined with &&, as perf joins them: the
	# writes to stderr (dd's summary), not the 100 to stdout
	"$PCL" record -q -e syscalls:sys_enter_write --filter 'count >= 1' --filter 'fd == 2' -o "$TMP/cf3.data" -- dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
	perf record -q -e syscalls:sys_enter_write --filter 'count >= 1' --filter 'fd == 2' -o "$TMP/pf3.data" -- dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
	a=$(perf script -i "$TMP/cf3.data" 2>/dev/null | wc -l)
	b=$(perf script -i "$TMP/pf3.data" 2>/dev/null | wc -l)
	[ "$a" = "$b" ] && [ "$a" -gt 0 ] && [ "$a" -lt 100 ] && ok record-filter-joined ||
		not_ok record-filter-joined "samples: pcl $a, perf $b (want equal, between 1 and 99)"
else
	skip record-filter "perf cannot record raw_syscalls:sys_enter here"
fi
for args in "--filter x -e raw_syscalls:sys_enter" "-e cpu-clock --filter x" "-e raw_syscalls:sys_enter --filter bogus==3"; do
	# shellcheck disable=SC2086
	run fbad "$PCL" record $args -o "$TMP/fb.data" -- true
	if [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] && [ "$(wc -l <"$TMP/fbad.err")" -eq 1 ] && [ ! -e "$TMP/fb.data" ]; then
		ok "record-filter-bad: $args"
	else
		not_ok "record-filter-bad: $args" "exit $RC (want an error of one line, no file)" "$(show "$TMP/fbad.err")"
	fi
done

# --- --per-thread: the threads perf's per-thread recording sees ---------------------
threads=$(workload threads)
for r in perf "$PCL"; do
	"$r" record -q -e cpu-clock --per-thread -o "$TMP/pt.$(basename "$r").data" -- "$threads" 4 300 >/dev/null 2>&1
done
want=$(perf report -i "$TMP/pt.perf.data" --stdio -q --sort comm 2>/dev/null | awk 'NF {print $2}')
got=$(perf report -i "$TMP/pt.pcl.data" --stdio -q --sort comm 2>/dev/null | awk 'NF {print $2}')
inh=$(evlist_attr "$TMP/pt.pcl.data" | grep -c '^inherit=1')
if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$inh" -eq 0 ]; then
	ok record-per-thread
else
	not_ok record-per-thread "comms: perf '$(echo $want)', pcl '$(echo $got)'; pcl inherit=1 attrs: $inh (want 0)"
fi
run ptp "$PCL" record -q -e cpu-clock --per-thread -o "$TMP/ptp.data" -- "$threads" 2 200
[ "$RC" -eq 0 ] && perf_reads_clean record-per-thread-perf-reads ptpr perf report -i "$TMP/ptp.data" --stdio ||
	not_ok record-per-thread-perf-reads "exit $RC" "$(show "$TMP/ptp.err")"

# --- -B: no BUILD_ID feature, as perf -B --------------------------------------------
missing() { perf report --header-only -i "$1" 2>/dev/null | grep '^# missing features:' | grep -cw BUILD_ID; }
perf record -q -B -e cpu-clock -o "$TMP/pB.data" -- "$spin" 100 2>/dev/null
"$PCL" record -q -B -e cpu-clock -o "$TMP/cB.data" -- "$spin" 100 2>/dev/null
"$PCL" record -q -e cpu-clock -o "$TMP/c.data" -- "$spin" 100 2>/dev/null
if [ "$(missing "$TMP/pB.data")" = 1 ] && [ "$(missing "$TMP/cB.data")" = 1 ] && [ "$(missing "$TMP/c.data")" = 0 ]; then
	ok record-no-buildid
else
	not_ok record-no-buildid "BUILD_ID missing: perf -B $(missing "$TMP/pB.data"), pcl -B $(missing "$TMP/cB.data") (want 1 both), pcl $(missing "$TMP/c.data") (want 0)"
fi

# --- --user-regs / --intr-regs: perf's masks, names and listing ----------------------
for spec in "" "=ax,R8" "=sp,ip"; do
	perf record -q -e cpu-clock --user-regs$spec -o "$TMP/pu.data" -- true 2>/dev/null
	"$PCL" record -q -e cpu-clock --user-regs$spec -o "$TMP/cu.data" -- true 2>/dev/null
	want=$(evlist_attr "$TMP/pu.data" | grep -E '^sample_regs_user=|^sample_type:REGS_USER')
	got=$(evlist_attr "$TMP/cu.data" | grep -E '^sample_regs_user=|^sample_type:REGS_USER')
	[ -n "$want" ] && [ "$want" = "$got" ] && ok "record-user-regs$spec" || not_ok "record-user-regs$spec" "perf: $(echo $want)" "pcl: $(echo $got)"
done
"$PCL" record -q -e cpu-clock --user-regs=ax,sp -o "$TMP/cu.data" -- "$spin" 100 2>/dev/null
n=$(perf script -i "$TMP/cu.data" -F uregs 2>/dev/null | grep -c 'AX:0x[0-9a-f]* *SP:0x')
[ "$n" -gt 0 ] && ok record-user-regs-script || not_ok record-user-regs-script "perf script -F uregs shows no AX/SP on pcl's file"
want=$(perf record --user-regs=\? 2>&1 | grep '^available registers')
got=$("$PCL" record --user-regs=\? 2>&1 | grep '^available registers')
[ -n "$want" ] && [ "$want" = "$got" ] && ok record-user-regs-list || not_ok record-user-regs-list "perf: $want" "pcl: $got"
got=$("$PCL" record --intr-regs=\? 2>&1 | grep '^available registers')
[ "$want" = "$got" ] && ok record-intr-regs-list || not_ok record-intr-regs-list "pcl: $got"
perf record -q -e cpu-clock --intr-regs=di,r8 -o "$TMP/pi.data" -- true 2>/dev/null
"$PCL" record -q -e cpu-clock --intr-regs=di,r8 -o "$TMP/ci.data" -- true 2>/dev/null
want=$(evlist_attr "$TMP/pi.data" | grep -E '^sample_regs_intr=|^sample_type:REGS_INTR')
got=$(evlist_attr "$TMP/ci.data" | grep -E '^sample_regs_intr=|^sample_type:REGS_INTR')
[ -n "$want" ] && [ "$want" = "$got" ] && ok record-intr-regs || not_ok record-intr-regs "perf: $(echo $want)" "pcl: $(echo $got)"
run ureg "$PCL" record --user-regs=xmm0 -o "$TMP/ur.data" -- true
[ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/ureg.err")" -eq 1 ] && ok record-user-regs-bad || not_ok record-user-regs-bad "exit $RC" "$(show "$TMP/ureg.err")"

# --- --max-size: stop near the size with perf's message; perf reads the file ------------
run_long ms 30 "$PCL" record -e cpu-clock -F 999 --max-size=20K -o "$TMP/ms.data" -- "$spin" 3000
sz=$(stat -c %s "$TMP/ms.data" 2>/dev/null || echo 0)
if grep -q '^\[ pcl record: pcl size limit reached ([0-9]* KB), stopping session \]$' "$TMP/ms.err" &&
	[ "$sz" -gt 20000 ] && [ "$sz" -lt 200000 ] && [ "$RC" -eq 143 ]; then
	ok record-max-size
else
	not_ok record-max-size "exit $RC (want 143: the command was stopped, as perf's), file $sz bytes (want a little over 20K)" "$(show "$TMP/ms.err")"
fi
perf_reads_clean record-max-size-perf-reads msr perf report -i "$TMP/ms.data" --stdio

# --- --overwrite: the newest samples, resolved, read by perf ---------------------------
# pinned to one CPU: each CPU's ring keeps its own newest samples, and one
# that the workload left early would keep early ones
run_long ow 30 "$PCL" record --overwrite -m 2 -e cpu-clock -F 999 -o "$TMP/ow.data" -- taskset -c 0 "$spin" 3000
perf_reads_clean record-overwrite-perf-reads owr perf report -i "$TMP/ow.data" --stdio --sort comm,dso
perf script -i "$TMP/ow.data" -F time 2>/dev/null | tr -d ':' | sort -n >"$TMP/ow.times"
# task_time KIND: the time of the workload's exec COMM or its EXIT record
task_time() {
	perf script -i "$TMP/ow.data" --show-task-events 2>/dev/null | grep -m1 "PERF_RECORD_$1" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); print $i } }'
}
n=$(wc -l <"$TMP/ow.times")
first=$(head -1 "$TMP/ow.times")
last=$(tail -1 "$TMP/ow.times")
exec_t=$(task_time COMM)
exit_t=$(task_time EXIT)
# an 8 KiB ring holds at most ~170 samples, far fewer than 3 s at 999 Hz give
# even on a loaded machine: the dump must be the end of the run, not its start
if [ "$RC" -eq 0 ] && [ "$n" -gt 50 ] && [ "$n" -le 200 ] && [ -n "$exec_t" ] && [ -n "$exit_t" ] &&
	awk -v f="$first" -v l="$last" -v s="$exec_t" -v e="$exit_t" 'BEGIN { exit !(f - s > 0.5 && e - l >= 0 && e - l < 0.1) }'; then
	ok record-overwrite-newest
else
	not_ok record-overwrite-newest "exit $RC, $n samples (want 51..200) from $first to $last; exec at $exec_t (want the first sample > 0.5 s later), exit at $exit_t (want the last sample < 0.1 s before)" "$(show "$TMP/ow.err")"
fi
# samples resolve to the workload (perf's own --overwrite file shows [unknown] there)
grep -q 'spin  *spin' "$TMP/owr.out" && ok record-overwrite-resolves || not_ok record-overwrite-resolves "$(show "$TMP/owr.out")"
# with --switch-output, SIGUSR2 dumps what came since the last dump
rm -f "$D"/*
"$PCL" record --overwrite --switch-output -m 4 -e cpu-clock -F 999 -o "$D/ow.data" -- "$spin" 2000 >/dev/null 2>"$TMP/ows.err" &
pid=$!
wait_file "$D/ow.data"
sleep 0.8
kill -USR2 $pid
wait $pid
set -- $(dumped "$TMP/ows.err")
if [ $# -eq 2 ]; then
	e1=$(perf script -i "$1" -F time 2>/dev/null | tr -d ':' | sort -n | tail -1)
	s2=$(perf script -i "$2" -F time 2>/dev/null | tr -d ':' | sort -n | head -1)
	if [ -n "$e1" ] && [ -n "$s2" ] && awk -v a="$e1" -v b="$s2" 'BEGIN { exit !(b > a) }'; then
		ok record-overwrite-switch
	else
		not_ok record-overwrite-switch "the second dump starts at $s2, not after the first one's last sample $e1"
	fi
else
	not_ok record-overwrite-switch "$# files dumped (want 2)" "$(show "$TMP/ows.err")"
fi

# --- -m SIZE (perf daemon configs write -m 20M): pages, up to a power of two -----------
# perf says how it rounded (20M: 5120 pages, to 8192); pcl's ring shows in its
# wakeup watermark, a quarter of the ring
for m in 20M 64K; do
	pages=$(perf record -m $m -e cpu-clock -o "$TMP/pm.data" -- true 2>&1 | sed -n 's/^rounding mmap pages size to .* (\([0-9]*\) pages)$/\1/p')
	[ -n "$pages" ] || pages=$(( $(numfmt --from=iec "$m") / 4096 ))
	"$PCL" record -m $m -e cpu-clock -o "$TMP/cm.data" -- true 2>"$TMP/cm.err" >/dev/null
	wm=$(evlist_attr "$TMP/cm.data" | sed -n 's/^wakeup_watermark }=//p')
	# a rounding is said, with the pages perf names
	said=$(sed -n 's/^pcl: rounding mmap size .* (\([0-9]*\) pages)$/\1/p' "$TMP/cm.err")
	[ "$m" = 64K ] || [ "$said" = "$pages" ] || wm="$wm, note '$said' pages"
	[ "$wm" = "$((pages * 4096 / 4))" ] && ok "record-mmap-size-$m" ||
		not_ok "record-mmap-size-$m" "pcl's wakeup watermark '$wm' (want $((pages * 4096 / 4)): a quarter of perf's $pages pages)"
done
