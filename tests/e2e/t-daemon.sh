#!/usr/bin/env bash
# pcl daemon against perf daemon 6.1, with the same config (two sessions):
#   daemon-ping          pcl daemon's sessions answer ping (pcl record --control);
#   daemon-list*         the list, -v and -x: lists of pcl's daemon are perf's
#                        daemon's once pids, base and up times are masked;
#   daemon-perf-client   perf's client gets from pcl's daemon what pcl's does
#                        (the socket protocol), and pcl's client from perf's daemon;
#   daemon-ping-missing  'ping --session NAME' for a session not in the config;
#   daemon-lock          a second daemon on the same base fails, as perf's;
#   daemon-reconfig      a changed run line restarts that session only; a
#                        session removed from the config is stopped;
#   daemon-stop          stop ends the daemon and every session; the lock
#                        held the daemon's pid; each session's perf.data is
#                        read by perf report;
#   daemon-foreground    start -f serves in the foreground;
#   daemon-record-control  pcl record --control=fifo:CTL,ACK answers ping,
#                        enable, disable and stop with "ack" as perf record
#                        does, and stops at "stop" with perf's exit status
#                        (the SIGTERM'ed command's);
#   daemon-signal        signal makes a --switch-output session start a new file;
#   daemon-perf-test     perf's own tests/shell/daemon.sh with pcl as perf.
# Every daemon and session is stopped, also when a check fails (trap).
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip daemon "perf is not installed"
	exit 0
fi

CONFIGS=()
fgpid=
cleanup() {
	local c pid
	for c in "${CONFIGS[@]}"; do
		pid=$(perf daemon --config "$c" -x: 2>/dev/null | head -1 | cut -d: -f1)
		[ -n "$pid" ] || continue
		perf daemon stop --config "$c" >/dev/null 2>&1
		timeout 30 tail --pid="$pid" -f /dev/null
		kill -9 "$pid" 2>/dev/null
	done
	[ -n "$fgpid" ] && kill -9 "$fgpid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# config NAME BASE RUN1 RUN2: a config with sessions size and time
config() {
	local c=$TMP/$1.config
	mkdir -p "$2"
	{
		printf '[daemon]\nbase=%s\n\n' "$2"
		[ -n "$3" ] && printf '[session-size]\nrun = %s\n\n' "$3"
		[ -n "$4" ] && printf '[session-time]\nrun = %s\n' "$4"
	} >"$c.tmp"
	mv "$c.tmp" "$c"
}

# wait_ping TOOL CONFIG SESSION STATE: until ping says STATE (10 s at most)
wait_ping() {
	local i
	for i in $(seq 200); do
		[ "$($1 daemon ping --config "$2" --session "$3" 2>/dev/null | awk '{ print $1 }')" = "$4" ] &&
			return 0
		sleep 0.05
	done
	return 1
}

# mask: pids, the base, up times
mask() { sed -E "s#$1#BASE#g; s/^-?[0-9]+([:,])/PID\1/; s/^\[-?[0-9]+:/[PID:/; s/(up: +)[0-9]+/\1N/; s/([:,])[0-9]+$/\1N/"; }

RUN1="-e cpu-clock -m 1 sleep 60"
RUN2="-e task-clock -m 1 sleep 60"
PB=$TMP/pcl-base
FB=$TMP/perf-base
config pcl "$PB" "$RUN1" "$RUN2"
config perf "$FB" "$RUN1" "$RUN2"
CONFIGS=("$TMP/pcl.config" "$TMP/perf.config")

"$PCL" daemon start --config "$TMP/pcl.config" 2>"$TMP/start.err"
rc=$?
perf daemon start --config "$TMP/perf.config" 2>/dev/null
if [ $rc -ne 0 ] || ! wait_ping "$PCL" "$TMP/pcl.config" size OK ||
	! wait_ping "$PCL" "$TMP/pcl.config" time OK; then
	not_ok daemon-ping "pcl daemon start: exit $rc; the sessions never answered ping" \
		"$(show "$TMP/start.err")" "$(show "$PB/output")" "$(show "$PB/session-size/output")"
	exit 0
fi
ok daemon-ping
wait_ping perf "$TMP/perf.config" size OK
wait_ping perf "$TMP/perf.config" time OK

for opt in "" -v -x: -x; do
	case $opt in -x:) name=daemon-list-xcolon ;; *) name=daemon-list${opt} ;; esac
	perf daemon --config "$TMP/perf.config" $opt 2>&1 | mask "$FB" >"$TMP/p.out"
	"$PCL" daemon --config "$TMP/pcl.config" $opt 2>&1 | mask "$PB" >"$TMP/q.out"
	diff_or_ok "$name" "$TMP/p.out" "$TMP/q.out" "perf daemon $opt" "pcl daemon $opt"
done
for cmd in "ping" "ping --session time"; do
	# shellcheck disable=SC2086
	perf daemon $cmd --config "$TMP/perf.config" >"$TMP/p.out" 2>&1
	# shellcheck disable=SC2086
	"$PCL" daemon $cmd --config "$TMP/pcl.config" >"$TMP/q.out" 2>&1
	n=${cmd#ping}; n=${n# --session }; diff_or_ok "daemon-ping-${n:-all}" "$TMP/p.out" "$TMP/q.out" "perf daemon $cmd" \
		"pcl daemon $cmd"
done
perf daemon ping --session nope --config "$TMP/perf.config" >"$TMP/p.out" 2>&1
"$PCL" daemon ping --session nope --config "$TMP/pcl.config" >"$TMP/q.out" 2>&1
diff_or_ok daemon-ping-missing "$TMP/p.out" "$TMP/q.out" "perf daemon ping" "pcl daemon ping"

# the protocol: each client against the other's daemon
perf daemon --config "$TMP/pcl.config" -x: -v >"$TMP/p.out" 2>&1
"$PCL" daemon --config "$TMP/pcl.config" -x: -v >"$TMP/q.out" 2>&1
perf daemon ping --config "$TMP/pcl.config" >>"$TMP/p.out" 2>&1
"$PCL" daemon ping --config "$TMP/pcl.config" >>"$TMP/q.out" 2>&1
"$PCL" daemon --config "$TMP/perf.config" -v >>"$TMP/q.out" 2>&1
perf daemon --config "$TMP/perf.config" -v >>"$TMP/p.out" 2>&1
"$PCL" daemon ping --config "$TMP/perf.config" >>"$TMP/q.out" 2>&1
perf daemon ping --config "$TMP/perf.config" >>"$TMP/p.out" 2>&1
if grep -q "OK   size" "$TMP/q.out"; then
	diff_or_ok daemon-perf-client "$TMP/p.out" "$TMP/q.out" "perf client" "pcl client"
else
	not_ok daemon-perf-client "no session answered" "$(show "$TMP/q.out")"
fi

# a second daemon on the same base: perf's "failed:" line
"$PCL" daemon start --config "$TMP/pcl.config" >"$TMP/lock.out" 2>&1
pid=$("$PCL" daemon --config "$TMP/pcl.config" -x: | head -1 | cut -d: -f1)
if [ "$(awk '{ print $1; exit }' "$TMP/lock.out")" = "failed:" ] && grep -q "pid $pid" "$TMP/lock.out" &&
	[ "$(cat "$PB/lock")" = "$pid" ]; then
	ok daemon-lock
else
	not_ok daemon-lock "second start on the same base, daemon pid $pid, lock '$(cat "$PB/lock")'" \
		"$(show "$TMP/lock.out")"
fi

# reconfig: time's run line changes (restart), then size goes away (stop)
line() { "$PCL" daemon --config "$TMP/pcl.config" -x: | grep "^[0-9-]*:$1:"; }
old_size=$(line size | cut -d: -f1)
old_time=$(line time | cut -d: -f1)
config pcl "$PB" "$RUN1" "-e cpu-clock -m 1 sleep 50"
timeout 15 tail --pid="$old_time" -f /dev/null
wait_ping "$PCL" "$TMP/pcl.config" time OK
new_time=$(line time)
if [ "$(line size | cut -d: -f1)" = "$old_size" ] && [ "${new_time%%:*}" != "$old_time" ] &&
	[ "$(echo "$new_time" | cut -d: -f3)" = "-e cpu-clock -m 1 sleep 50" ] && [ ! -d /proc/"$old_time" ]; then
	config pcl "$PB" "" "-e cpu-clock -m 1 sleep 50"
	timeout 15 tail --pid="$old_size" -f /dev/null
	wait_ping "$PCL" "$TMP/pcl.config" size FAIL
	"$PCL" daemon --config "$TMP/pcl.config" >"$TMP/re.out"
	if [ "$(wc -l <"$TMP/re.out")" -eq 2 ] && grep -q ':time] perf record -e cpu-clock -m 1 sleep 50' "$TMP/re.out"; then
		ok daemon-reconfig
	else
		not_ok daemon-reconfig "after removing session size" "$(show "$TMP/re.out")"
	fi
else
	not_ok daemon-reconfig "size was $old_size, time $old_time; now" "$(line size)" "$new_time"
fi

# stop: daemon and sessions gone, files readable
pids=$("$PCL" daemon --config "$TMP/pcl.config" -x: | cut -d: -f1 | tr '\n' ' ')
"$PCL" daemon stop --config "$TMP/pcl.config" >"$TMP/stop.out" 2>&1
for p in $pids; do timeout 30 tail --pid="$p" -f /dev/null; done
alive=""
for p in $pids; do [ -d /proc/"$p" ] && alive="$alive $p"; done
bad=""
for f in "$PB"/session-*/perf.data; do
	perf report --stdio -i "$f" >"$TMP/rep.out" 2>&1 || bad="$bad $f"
done
if [ -z "$alive" ] && [ -z "$bad" ] && [ -f "$PB/session-time/perf.data" ]; then
	ok daemon-stop
else
	not_ok daemon-stop "still alive:$alive; unreadable:$bad" "$(show "$PB/output")" \
		"$(show "$TMP/rep.out")"
fi

# foreground: start -f serves until stopped
config fg "$TMP/fg-base" "$RUN1" ""
CONFIGS+=("$TMP/fg.config")
"$PCL" daemon start -f --config "$TMP/fg.config" >"$TMP/fg.out" 2>&1 &
fgpid=$!
if wait_ping "$PCL" "$TMP/fg.config" size OK &&
	[ "$("$PCL" daemon --config "$TMP/fg.config" -x: | head -1 | cut -d: -f1)" = "$fgpid" ]; then
	"$PCL" daemon stop --config "$TMP/fg.config"
	timeout 30 tail --pid="$fgpid" -f /dev/null
	if grep -q "daemon exited" "$TMP/fg.out" && [ ! -d /proc/$fgpid ]; then
		ok daemon-foreground
	else
		not_ok daemon-foreground "pid $fgpid after stop" "$(show "$TMP/fg.out")"
	fi
else
	not_ok daemon-foreground "start -f: no session answered" "$(show "$TMP/fg.out")"
fi

# record --control, the session side, for perf record and pcl record alike:
# each command answered "ack", "stop" ends the recording at once, exit 0
control_check() { # TOOL
	local d=$TMP/ctl-$1 pid i acks rc
	mkdir -p "$d"
	mkfifo "$d/ctl" "$d/ack"
	(cd "$d" && exec $2 record -q -e cpu-clock --control=fifo:ctl,ack -o rec.data -- sleep 30 \
		>out 2>&1) &
	pid=$!
	exec 8<>"$d/ack"
	acks=""
	for c in ping disable enable ping stop; do
		for i in $(seq 100); do
			# opening the FIFO waits for record to open it: give it 0.5 s a try
			timeout 0.5 bash -c 'printf "%s" "$1" >"$2"' - "$c" "$d/ctl" && break
			sleep 0.05
		done
		read -r -t 5 -u 8 a && acks="$acks $a"
		sleep 0.1
	done
	exec 8<&-
	for i in $(seq 50); do [ -d /proc/$pid ] || break; sleep 0.1; done
	[ -d /proc/$pid ] && { kill -9 $pid; wait $pid; CTL="$1: still running after stop"; return; }
	wait $pid
	rc=$?
	CTL_RC=$rc
	CTL="$1: exit $rc, answers:$acks; $(head -3 "$d/out" | tr '\n' ' ')"
	[ "$acks" = " ack ack ack ack ack" ] && perf report -i "$d/rec.data" --stdio >/dev/null 2>&1
}
if control_check pcl "$PCL"; then
	pcl_ctl=$CTL
	pcl_rc=$CTL_RC
	if control_check perf perf && [ "$CTL_RC" = "$pcl_rc" ]; then
		ok daemon-record-control
	else
		not_ok daemon-record-control "perf record does not behave as assumed: $CTL" "$pcl_ctl"
	fi
else
	not_ok daemon-record-control "$CTL"
fi

# perf's own test, with pcl as perf
mkdir -p "$TMP/shim"
ln -s "$PCL" "$TMP/shim/perf"
perf_test() { # NAME SCRIPT NR-PARTS
	local before rc n f
	before=$(ls -d /tmp/perf.daemon.* 2>/dev/null)
	PATH=$TMP/shim:$PATH timeout 300 bash "$2" >"$TMP/perf-test.out" 2>&1
	rc=$?
	# a part that fails exits without removing its config and base: ours only
	for f in /tmp/perf.daemon.*; do
		[ -e "$f" ] && ! grep -qxF "$f" <<<"$before" && rm -rf "$f"
	done
	n=$(grep -c '^test daemon' "$TMP/perf-test.out")
	if [ $rc -eq 0 ] && ! grep -q FAILED "$TMP/perf-test.out" && [ "$n" -eq "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "perf's daemon.sh with pcl as perf: exit $rc" "$(show "$TMP/perf-test.out" 30)"
	fi
}

if ! "$PCL" record -h 2>&1 | grep -q -- --switch-output; then
	skip daemon-signal "pcl record has no --switch-output yet"
	skip daemon-perf-test "its signal part needs pcl record --switch-output"
	sed 's/^test_signal$//' /usr/lib/perf-core/tests/shell/daemon.sh >"$TMP/daemon-nosignal.sh"
	perf_test daemon-perf-test-nosignal "$TMP/daemon-nosignal.sh" 5
	exit 0
fi

config sig "$TMP/sig-base" "-e cpu-clock --switch-output -m 1 sleep 60" ""
CONFIGS+=("$TMP/sig.config")
"$PCL" daemon start --config "$TMP/sig.config"
wait_ping "$PCL" "$TMP/sig.config" size OK
"$PCL" daemon signal --config "$TMP/sig.config" --session size >"$TMP/sig.out" 2>&1
sleep 0.5
"$PCL" daemon signal --config "$TMP/sig.config" >>"$TMP/sig.out" 2>&1
sleep 0.5
pid=$("$PCL" daemon --config "$TMP/sig.config" -x: | head -1 | cut -d: -f1)
"$PCL" daemon stop --config "$TMP/sig.config"
timeout 30 tail --pid="$pid" -f /dev/null
n=$(find "$TMP/sig-base/session-size" -name 'perf.data*' | wc -l)
if [ "$n" -eq 3 ] && grep -q "^signal 12 sent to session 'size \[" "$TMP/sig.out"; then
	ok daemon-signal
else
	not_ok daemon-signal "expected 3 perf.data files, found $n" "$(show "$TMP/sig.out")" \
		"$(ls "$TMP/sig-base/session-size")"
fi

perf_test daemon-perf-test /usr/lib/perf-core/tests/shell/daemon.sh 6
