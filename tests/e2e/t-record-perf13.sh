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

# --- --switch-output (signal): SIGUSR2 finishes a file, each is whole ----------------
D=$TMP/sw
mkdir -p "$D"
"$PCL" record -e cpu-clock -F 999 --switch-output -o "$D/sw.data" -- "$spin" 1600 \
	>"$TMP/sw.out" 2>"$TMP/sw.err" &
pid=$!
sleep 0.6
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

# --- --switch-output=SIZE and --switch-max-files: the newest N files stay ------------
rm -f "$D"/*
run_long sz 30 "$PCL" record -e cpu-clock -F 999 --switch-output=16K --switch-max-files 2 \
	-o "$D/s.data" -- "$spin" 1500
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
	[ "$sz" -ge 16384 ] || small="$small $f=$sz"
done
[ -z "$small" ] && ok record-switch-output-size-big-enough || not_ok record-switch-output-size-big-enough "files below 16K:$small"

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
sleep 0.3
kill -USR2 $pid
wait $pid
rc=$?
[ "$rc" -eq 0 ] && [ -s "$D/u.data" ] && ok record-sigusr2-ignored ||
	not_ok record-sigusr2-ignored "exit $rc (want 0: SIGUSR2 does not stop pcl record)" "$(show "$TMP/u.err")"
