#!/usr/bin/env bash
# pcl stat record writes counts as a perf.data stat file, and pcl stat
# report prints them the way pcl stat does; perf stat report reads pcl's
# files and pcl stat report reads perf's, in file and pipe mode.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-stat "perf is not installed"
	exit 0
fi
if ! "$PCL" stat record -o "$TMP/probe.data" -- true >/dev/null 2>&1 &&
	! "$PCL" help stat 2>&1 | grep -q 'record'; then
	not_ok record-stat-command "'$PCL stat record -- true' fails and 'pcl help stat' mentions no record:" \
		"$("$PCL" stat record -o "$TMP/probe.data" -- true 2>&1 | head -5)"
	exit 0
fi
writes=$(workload writes)
touch_pages=$(workload touch-pages)
TP=syscalls:sys_enter_write
K=1234

# counters FILE: "VALUE EVENT" for each counter line of plain stat output.
counters() {
	awk '/^ *[0-9<]/ && !/seconds (time elapsed|user|sys)/ {
		v = $1; gsub(/,/, "", v)
		if ($2 == "msec") { print v, $3 } else if (v == "<not") { print "<" $2 ">", $4 } else { print v, $2 } }' "$1"
}
# counter_lines FILE: the counter lines of plain stat output, numbers
# normalised to runs of '~' (norm_layout) so layouts compare.
counter_lines() { grep -vE 'seconds (time elapsed|user|sys)|Performance counter stats' "$1" | grep -v '^ *$' | unscale | norm_layout; }
# both_out TAG: stdout and stderr of run TAG together (reports may use either).
both_out() { cat "$TMP/$1.out" "$TMP/$1.err" >"$TMP/$1.all"; }

# --- pcl stat record, then pcl stat report -------------------------------------------
F=$TMP/stat.data
run srec "$PCL" stat record -o "$F" -e "$TP" -e task-clock -- "$writes" $K
if [ "$RC" -ne 0 ] || crashed "$TMP/srec.err" "$RC" || [ ! -s "$F" ]; then
	not_ok record-stat-record "pcl stat record -o F -e $TP -e task-clock -- writes $K: exit $RC (want 0)," \
		"file $(stat -c %s "$F" 2>/dev/null || echo missing); stderr:" "$(show "$TMP/srec.err")"
else
	ok record-stat-record
	run srep "$PCL" stat report -i "$F"
	both_out srep
	v=$(counters "$TMP/srep.all" | awk -v e="$TP" '$2 == e { print $1 }')
	if [ "$RC" -eq 0 ] && [ "$v" = $K ]; then
		ok record-stat-report-exact
	else
		not_ok record-stat-report-exact "pcl stat report -i F: exit $RC, $TP '$v' (want exactly $K); output:" \
			"$(show "$TMP/srep.all" 20)"
	fi
	# The report shows what 'pcl stat record' printed when it counted
	# (as perf stat report does): the same events, the same values.
	both_out srec
	if [ -n "$(counters "$TMP/srec.all")" ]; then
		counters "$TMP/srec.all" >"$TMP/srec.c"
		counters "$TMP/srep.all" >"$TMP/srep.c"
		diff_or_ok record-stat-report-same-values "$TMP/srec.c" "$TMP/srep.c" "pcl stat record" "pcl stat report"
	fi
	# ...in the layout of a plain pcl stat.
	run plain "$PCL" stat -e "$TP" -e task-clock -- "$writes" $K
	both_out plain
	counter_lines "$TMP/plain.all" >"$TMP/plain.l"
	counter_lines "$TMP/srep.all" >"$TMP/srep.l"
	diff_or_ok record-stat-report-layout "$TMP/plain.l" "$TMP/srep.l" "pcl stat (numbers as ~)" "pcl stat report (numbers as ~)"
	if grep -q 'seconds time elapsed' "$TMP/srep.all"; then
		ok record-stat-report-elapsed
	else
		not_ok record-stat-report-elapsed "pcl stat report prints no 'seconds time elapsed' line:" "$(show "$TMP/srep.all" 20)"
	fi
fi

# --- perf stat report on pcl's file, pcl stat report on perf's (software events) -----------------
# perf 6.1's stat report refuses stat files with tracepoints (it wants
# tracing data that perf stat record does not write), so these use software
# events; one of them deterministic enough: page-faults of touch-pages.
EV=task-clock,page-faults,context-switches
run swrec "$PCL" stat record -o "$TMP/sw.data" -e $EV -- "$touch_pages" 1000
run swperf perf stat report -i "$TMP/sw.data"
both_out swperf
run swpcl "$PCL" stat report -i "$TMP/sw.data"
both_out swpcl
counters "$TMP/swperf.all" >"$TMP/swperf.c"
counters "$TMP/swpcl.all" >"$TMP/swpcl.c"
if [ "$RC" -eq 0 ] && [ -s "$TMP/swperf.c" ] && ! complaints "$TMP/swperf.err" >/dev/null &&
	[ "$(awk '$2 == "page-faults" { print $1 }' "$TMP/swperf.c")" -ge 1000 ] 2>/dev/null; then
	diff_or_ok record-stat-perf-reads-pcl "$TMP/swperf.c" "$TMP/swpcl.c" "perf stat report -i pcl-file" "pcl stat report -i pcl-file"
else
	not_ok record-stat-perf-reads-pcl "pcl stat record -o F -e $EV -- touch-pages 1000; perf stat report -i F:" \
		"want exit 0, no complaint, page-faults >= 1000; got:" "$(show "$TMP/swperf.all" 20)" "pcl stat record said:" \
		"$(show "$TMP/swrec.err")"
fi

run pswrec perf stat record -o "$TMP/psw.data" -e $EV -- "$touch_pages" 1000
run pswperf perf stat report -i "$TMP/psw.data"
both_out pswperf
run pswpcl "$PCL" stat report -i "$TMP/psw.data"
both_out pswpcl
counters "$TMP/pswperf.all" >"$TMP/pswperf.c"
counters "$TMP/pswpcl.all" >"$TMP/pswpcl.c"
if [ "$RC" -eq 0 ] && ! crashed "$TMP/pswpcl.err" "$RC" && [ -s "$TMP/pswpcl.c" ]; then
	diff_or_ok record-stat-pcl-reads-perf "$TMP/pswperf.c" "$TMP/pswpcl.c" "perf stat report -i perf-file" "pcl stat report -i perf-file"
else
	not_ok record-stat-pcl-reads-perf "perf stat record -o F -e $EV -- touch-pages 1000; pcl stat report -i F: exit $RC;" \
		"output:" "$(show "$TMP/pswpcl.all" 20)"
fi
# A perf stat file with a tracepoint: perf 6.1 cannot report it, pcl can.
run ptprec perf stat record -o "$TMP/ptp.data" -e "$TP" -- "$writes" $K
run ptppcl "$PCL" stat report -i "$TMP/ptp.data"
both_out ptppcl
v=$(counters "$TMP/ptppcl.all" | awk -v e="$TP" '$2 == e { print $1 }')
if [ "$RC" -eq 0 ] && [ "$v" = $K ]; then
	ok record-stat-pcl-reads-perf-tracepoint
else
	not_ok record-stat-pcl-reads-perf-tracepoint "perf stat record -e $TP -- writes $K; pcl stat report -i F: exit $RC," \
		"$TP '$v' (want $K); output:" "$(show "$TMP/ptppcl.all" 20)"
fi

# --- pipe mode ------------------------------------------------------------------------------
K2=77
timeout -k 5 20 "$PCL" stat record -o - -e "$TP" -- "$writes" $K2 2>"$TMP/pipe.rec" |
	timeout -k 5 20 "$PCL" stat report -i - >"$TMP/pipe.out" 2>"$TMP/pipe.err"
RC=$?
both_out pipe
v=$(counters "$TMP/pipe.all" | awk -v e="$TP" '$2 == e { print $1 }')
if [ "$RC" -eq 0 ] && [ "$v" = $K2 ]; then
	ok record-stat-pipe
else
	not_ok record-stat-pipe "pcl stat record -o - -e $TP -- writes $K2 | pcl stat report -i -: exit $RC, $TP '$v' (want $K2)" \
		"report:" "$(show "$TMP/pipe.all" 20)" "record stderr:" "$(show "$TMP/pipe.rec")"
fi
timeout -k 5 20 "$PCL" stat record -o - -e page-faults -- "$touch_pages" 1000 2>"$TMP/pipe2.rec" |
	timeout -k 5 20 perf stat report -i - >"$TMP/pipe2.out" 2>"$TMP/pipe2.err"
RC=$?
both_out pipe2
v=$(counters "$TMP/pipe2.all" | awk '$2 == "page-faults" { print $1 }')
if [ "$RC" -eq 0 ] && [ "${v:-0}" -ge 1000 ] 2>/dev/null && ! complaints "$TMP/pipe2.err" >/dev/null; then
	ok record-stat-pipe-to-perf
else
	not_ok record-stat-pipe-to-perf "pcl stat record -o - -e page-faults -- touch-pages 1000 | perf stat report -i -:" \
		"exit $RC, page-faults '$v' (want >= 1000); perf's output:" "$(show "$TMP/pipe2.all" 20)"
fi
# perf's stream (saved, so both read the same one): pcl stat report -i -
# reads it, and a file holding a stream, as perf stat report does.
perf stat record -o - -e $EV -- "$touch_pages" 1000 2>/dev/null >"$TMP/pst.data"
perf stat report -i - <"$TMP/pst.data" >"$TMP/pst.out" 2>&1
counters "$TMP/pst.out" >"$TMP/pst.c"
run pipe3 "$PCL" stat report -i - <"$TMP/pst.data"
both_out pipe3
counters "$TMP/pipe3.all" >"$TMP/pipe3.c"
if [ "$RC" -eq 0 ] && ! crashed "$TMP/pipe3.err" "$RC" && [ -s "$TMP/pipe3.c" ]; then
	diff_or_ok record-stat-pipe-from-perf "$TMP/pst.c" "$TMP/pipe3.c" "perf stat report -i - <perf-stream" "pcl stat report -i - <perf-stream"
else
	not_ok record-stat-pipe-from-perf "perf stat record -o - -e $EV -- touch-pages 1000 | pcl stat report -i -:" \
		"exit $RC; pcl's output:" "$(show "$TMP/pipe3.all" 20)"
fi
run pipe4 "$PCL" stat report -i "$TMP/pst.data"
both_out pipe4
counters "$TMP/pipe4.all" >"$TMP/pipe4.c"
if [ "$RC" -eq 0 ] && ! crashed "$TMP/pipe4.err" "$RC" && [ -s "$TMP/pipe4.c" ]; then
	diff_or_ok record-stat-saved-stream "$TMP/pst.c" "$TMP/pipe4.c" "perf stat report -i STREAM-FILE" "pcl stat report -i STREAM-FILE"
else
	not_ok record-stat-saved-stream "perf stat record -o - ... > F; pcl stat report -i F (perf reads it): exit $RC;" \
		"pcl's output:" "$(show "$TMP/pipe4.all" 20)"
fi

# A run that fails leaves no file that looks whole, also when -o is a
# symlink: the file the writer made (the link's target) goes, the earlier
# one stays as TARGET.old, and the link stays.
mkdir -p "$TMP/fail"
echo earlier >"$TMP/fail/target"
ln -sf target "$TMP/fail/link"
run failrun "$PCL" stat record -o "$TMP/fail/link" -e task-clock -- /nonexistent-pcl-command
if [ "$RC" -ne 0 ] && ! crashed "$TMP/failrun.err" "$RC" && [ -L "$TMP/fail/link" ] &&
	[ ! -e "$TMP/fail/target" ] && [ "$(cat "$TMP/fail/target.old" 2>/dev/null)" = earlier ]; then
	ok record-stat-failed-run-symlink
else
	not_ok record-stat-failed-run-symlink \
		"pcl stat record -o LINK -- /nonexistent: exit $RC; want non-zero, LINK kept, its target removed, TARGET.old the earlier file:" \
		"$(ls -l "$TMP/fail" | sed 's/^/| /')" "$(show "$TMP/failrun.err")"
fi
