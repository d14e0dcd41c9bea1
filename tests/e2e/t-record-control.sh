#!/usr/bin/env bash
# pcl record --control fd:CTL[,ACK] with pipes, as scripts drive perf
# record: the commands work, and a control pipe whose writer has gone is
# no longer watched (it polls ready for ever: the loop must not spin).
. "$(dirname "$0")/lib.sh"

has_record || { skip record-control "pcl record is not built"; exit 0; }

# cpu_secs ERRFILE: user+system seconds that /usr/bin/time wrote last in ERRFILE
cpu_secs() { tail -1 "$1" | awk '{ print $1 + $2 }'; }

# --- a control pipe at its end: recording goes on, idle ---------------------------
if ! [ -x /usr/bin/time ]; then
	skip record-control-eof "/usr/bin/time is not installed"
else
	/usr/bin/time -f "%U %S" "$PCL" record -q -e cpu-clock -o "$TMP/eof.data" \
		--control fd:3 -- sleep 2 3< <(true) >"$TMP/eof.out" 2>"$TMP/eof.err"
	rc=$?
	cpu=$(cpu_secs "$TMP/eof.err")
	if [ $rc -eq 0 ] && awk -v c="$cpu" 'BEGIN { exit !(c < 0.5) }'; then
		ok record-control-eof
	else
		not_ok record-control-eof "exit $rc, pcl used ${cpu}s of CPU while 'sleep 2' ran" \
			"(a closed control pipe must not be polled again)" "$(head -5 "$TMP/eof.err")"
	fi
fi

# --- "stop" through a pipe ends the recording, acked, as perf's --------------------
mkfifo "$TMP/ack"
exec 5<>"$TMP/ack"
start=$(date +%s)
{ sleep 0.5; echo stop; } | "$PCL" record -q -e cpu-clock -o "$TMP/stop.data" --control fd:0,5 \
	-- sleep 10 >"$TMP/stop.out" 2>"$TMP/stop.err"
rc=$?
took=$(($(date +%s) - start))
ack=$(timeout 2 head -c 4 <&5)
exec 5>&-
# perf's status after a "stop" is the SIGTERM'ed command's
if [ "$took" -lt 8 ] && [ "$ack" = "ack" ] && [ -s "$TMP/stop.data" ] &&
	"$PCL" report -i "$TMP/stop.data" --stdio >/dev/null 2>&1; then
	ok record-control-stop
else
	not_ok record-control-stop "exit $rc after ${took}s, ack '$ack'" "$(head -5 "$TMP/stop.err")"
fi
