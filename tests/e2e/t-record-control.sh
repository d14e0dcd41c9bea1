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

# --- --switch-output: a SIGUSR2 that comes while a file is being switched, just
# before a "stop", still gets its file (perf daemon's signal-then-stop does this:
# perf's daemon.sh test_signal wants 3 files). The first switch fills a fresh
# build-id cache (a copy of /proc/kallsyms): the second signal lands in it, and the
# "stop" is read in the same turn. A retry guards against the two signals merging
# into one when this machine is slow to deliver the first.
got=
for attempt in 1 2 3; do
	d=$TMP/sw$attempt
	mkdir -p "$d"
	mkfifo "$d/ctl" "$d/ack"
	exec 6<>"$d/ctl" 7<>"$d/ack"
	PERF_BUILDID_DIR=$d/cache "$PCL" record -q -e cpu-clock --switch-output -o "$d/sw.data" \
		--control "fifo:$d/ctl,$d/ack" -- sleep 20 >"$d/out" 2>"$d/err" &
	pid=$!
	# the answer to a ping says the recording loop runs (its SIGUSR2 handler is set)
	echo ping >&6
	timeout 10 head -c 4 <&7 >/dev/null
	kill -USR2 $pid
	sleep 0.015
	kill -USR2 $pid
	echo stop >&6
	timeout 30 tail --pid=$pid -f /dev/null
	wait $pid 2>/dev/null
	exec 6>&- 7>&-
	got="$got $(find "$d" -maxdepth 1 -name 'sw.data.*' | wc -l)"
	[ "${got##* }" -eq 3 ] && break
done
if [ "${got##* }" -eq 3 ]; then
	ok record-control-switch-then-stop
else
	not_ok record-control-switch-then-stop "want 3 files (2 signals, then the last); got:$got" \
		"$(head -5 "$d/err")"
fi
