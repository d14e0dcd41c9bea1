#!/usr/bin/env bash
# pcl record -o - writes perf's pipe format to stdout: perf report -i - and
# perf script -i - read it as it streams, find the hot function, and say
# nothing to complain about.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-pipe "perf is not installed"
	exit 0
fi
if ! has_record; then
	not_ok record-pipe-command "'$PCL help' lists no record command"
	exit 0
fi
hot=$(workload hot) || { not_ok record-pipe-workload "cannot build tests/workloads/hot.c"; exit 0; }

# pipe TAG READER...: pcl record -o - -- hot 400 | READER -i -; pcl's stderr
# in $TMP/TAG.rec, the reader's in $TMP/TAG.err, its stdout in $TMP/TAG.out;
# statuses in PRC (pcl) and RRC (reader).
pipe() {
	local tag=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout -k 5 40 bash -c '"$1" record -o - -- "$2" 400 2>"$3"; echo $? >"$3.rc"' _ \
		"$PCL" "$hot" "$TMP/$tag.rec" | timeout -k 5 40 "$@" -i - >"$TMP/$tag.out" 2>"$TMP/$tag.err"
	RRC=$?
	PRC=$(cat "$TMP/$tag.rec.rc" 2>/dev/null || echo none)
}
# pcl_ran NAME TAG: not ok (and false) if pcl failed in pipe TAG.
pcl_ran() {
	if [ "$PRC" != 0 ] || crashed "$TMP/$2.rec" "${PRC/none/255}"; then
		not_ok "$1" "pcl record -o - -- hot 400: exit $PRC (want 0); stderr:" "$(show "$TMP/$2.rec")"
		return 1
	fi
}

# --- perf report -i - ----------------------------------------------------------
pipe report perf report --stdio --no-children --sort sym
if pcl_ran record-pipe-report report; then
	top=$(grep -v '^#' "$TMP/report.out" | awk 'NF { print $3 " " $1; exit }')
	if [ "$RRC" -eq 0 ] && ! complaints "$TMP/report.err" >/dev/null && [ "${top% *}" = hot_leaf ]; then
		ok record-pipe-report
	else
		not_ok record-pipe-report "pcl record -o - -- hot 400 | perf report -i - --stdio --no-children --sort sym:" \
			"perf exit $RRC (want 0), top symbol and share '$top' (want hot_leaf), perf stderr (want no complaint):" \
			"$(show "$TMP/report.err")" "perf stdout:" "$(grep -v '^#' "$TMP/report.out" | grep -v '^$' | head -6)"
	fi
	# The summary goes to stderr, naming the pipe, never into the data.
	read -r woken _ path _ <<<"$(record_summary "$TMP/report.rec")"
	if [ "$woken" != - ] && [ "$path" = - ]; then
		ok record-pipe-summary
	else
		not_ok record-pipe-summary "pcl's stderr: woken '$woken', path '$path'" \
			"want '[ pcl record: Woken up N times ... ]' and '[ pcl record: Captured and wrote X MB - ... ]'" \
			"$(show "$TMP/report.rec")"
	fi
fi

# --- perf script -i - ----------------------------------------------------------
pipe script perf script -F comm,pid,tid,event,ip,sym
if pcl_ran record-pipe-script script; then
	n=$(grep -c 'hot_leaf' "$TMP/script.out")
	comm=$(awk 'NF { print $1; exit }' "$TMP/script.out")
	if [ "$RRC" -eq 0 ] && ! complaints "$TMP/script.err" >/dev/null && [ "$n" -ge 100 ] &&
		[ "$comm" = "$(basename "$hot")" ]; then
		ok record-pipe-script
	else
		not_ok record-pipe-script "pcl record -o - -- hot 400 | perf script -i -:" \
			"perf exit $RRC (want 0), $n samples in hot_leaf (want >= 100: 400 ms at 4000 Hz)," \
			"first comm '$comm' (want '$(basename "$hot")'), perf stderr (want no complaint):" \
			"$(show "$TMP/script.err")" "perf stdout:" "$(show "$TMP/script.out" 5)"
	fi
fi

# --- the stream itself: pipe header, whole records, saved to a file ---------------
run_long file 40 "$PCL" record -o - -- "$hot" 300
S=$TMP/file.out
walk=$(data_walk "$S")
mode=$(walk_get "$walk" mode)
if [ "$mode" = nopython ]; then
	skip record-pipe-stream "python3 is not installed"
elif [ "$RC" -eq 0 ] && [ "$mode" = pipe ] && [ "$(walk_get "$walk" tail)" = 0 ] &&
	[ "$(walk_get "$walk" samples)" -ge 100 ]; then
	ok record-pipe-stream
else
	not_ok record-pipe-stream "pcl record -o - -- hot 300 > FILE: exit $RC; FILE walked record by record:" \
		"$walk" "want mode=pipe (PERFILE2, header size 16), tail=0 (whole records), samples >= 100" \
		"pcl stderr:" "$(show "$TMP/file.err")"
fi
# perf reads the saved stream as a file too.
if [ -s "$S" ]; then
	run_long saved 40 perf report --stdio --no-children --sort sym -i "$S"
	top=$(grep -v '^#' "$TMP/saved.out" | awk 'NF { print $3; exit }')
	if [ "$RC" -eq 0 ] && ! complaints "$TMP/saved.err" >/dev/null && [ "$top" = hot_leaf ]; then
		ok record-pipe-saved-report
	else
		not_ok record-pipe-saved-report "perf report -i FILE (pcl record -o - > FILE): exit $RC, top '$top' (want hot_leaf)" \
			"stderr:" "$(show "$TMP/saved.err")"
	fi
fi

# --- -g through a pipe: perf script shows the chains --------------------------------
if hotfp=$(workload_fp hot); then
	timeout -k 5 40 "$PCL" record -g -o - -- "$hotfp" 300 2>"$TMP/g.rec" |
		timeout -k 5 40 perf script -F ip,sym -i - >"$TMP/g.out" 2>"$TMP/g.err"
	RRC=$?
	n=$(grep -A3 -P '^\t\s*[0-9a-f]+ hot_leaf$' "$TMP/g.out" | grep -cP '^\t\s*[0-9a-f]+ main$')
	if [ "$RRC" -eq 0 ] && ! complaints "$TMP/g.err" >/dev/null && [ "$n" -ge 50 ]; then
		ok record-pipe-callchain
	else
		not_ok record-pipe-callchain "pcl record -g -o - -- hot 300 | perf script -F ip,sym -i -:" \
			"perf exit $RRC, $n hot_leaf samples with main 3 frames up (want >= 50)" \
			"perf stderr:" "$(show "$TMP/g.err")" "pcl stderr:" "$(show "$TMP/g.rec")" "perf stdout:" "$(show "$TMP/g.out" 8)"
	fi
else
	skip record-pipe-callchain "clang is not installed (scripts/deps.sh)"
fi

# --- tracepoints through a pipe: the formats stream as HEADER_TRACING_DATA ------------
# perf decodes the fields from the streamed formats, and names the event from the
# stream's EVENT_UPDATE records; pcl's own reader passes over the formats' bytes.
writes=$(workload writes)
timeout -k 5 40 "$PCL" record -q -e syscalls:sys_enter_write,task-clock -o - -- "$writes" 7 2>"$TMP/tp.rec" |
	timeout -k 5 40 perf script -i - >"$TMP/tp.out" 2>"$TMP/tp.err"
RRC=$?
n=$(grep -c 'syscalls:sys_enter_write: fd: ' "$TMP/tp.out")
if [ "$RRC" -eq 0 ] && [ "$n" -eq 7 ] && ! complaints "$TMP/tp.err" >/dev/null; then
	ok record-pipe-tracepoint-fields
else
	not_ok record-pipe-tracepoint-fields "pcl record -e syscalls:sys_enter_write,task-clock -o - -- writes 7 | perf script -i -:" \
		"perf exit $RRC, $n lines with the named event and its fields (want 7)" \
		"perf stderr:" "$(show "$TMP/tp.err")" "perf stdout:" "$(show "$TMP/tp.out" 8)"
fi
"$PCL" stat record -o - -e syscalls:sys_enter_write,task-clock -- "$writes" 7 2>/dev/null |
	"$PCL" stat report -i - >"$TMP/tps.out" 2>&1
n=$(awk '$2 == "syscalls:sys_enter_write" {print $1}' "$TMP/tps.out")
if [ "$n" = "7" ]; then
	ok record-pipe-stat-tracepoint
else
	not_ok record-pipe-stat-tracepoint "pcl stat record -o - -e syscalls:sys_enter_write,... -- writes 7 | pcl stat report -i -:" \
		"count '$n' (want 7); output:" "$(show "$TMP/tps.out")"
fi
