#!/usr/bin/env bash
# pcl daemon ends on SIGTERM whenever it comes: also while it is busy
# reconfiguring (stopping a session that does not answer "stop" takes it
# 10 s), not only while it waits in poll. A SIGTERM noted by a handler
# during that work was followed by poll(-1), which nothing woke again.
. "$(dirname "$0")/lib.sh"

has_cmd daemon || { skip daemon-term "pcl daemon is not built"; exit 0; }

base=$TMP/base
mkdir -p "$base"
# the session's record blocks opening a FIFO nobody reads: it never reads its control
mkfifo "$TMP/out.fifo"
cfg() { printf '[daemon]\nbase=%s\n[session-a]\nrun = -e %s -o %s -- sleep 60\n' \
	"$base" "$1" "$TMP/out.fifo" >"$TMP/c.tmp" && mv "$TMP/c.tmp" "$TMP/c.config"; }
cfg cpu-clock
"$PCL" daemon start --config "$TMP/c.config" 2>"$TMP/start.err"
for i in $(seq 100); do
	[ -s "$base/lock" ] && grep -q "running session" "$base/output" 2>/dev/null && break
	sleep 0.05
done
dpid=$(cat "$base/lock" 2>/dev/null)
if [ -z "$dpid" ]; then
	not_ok daemon-term "the daemon did not start" "$(show "$TMP/start.err")"
	exit 0
fi
# a changed run line: the daemon stops the session (10 s: it does not answer) ...
cfg task-clock
sleep 1
# ... and gets SIGTERM meanwhile
kill -TERM "$dpid"
for i in $(seq 300); do
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$dpid" 2>/dev/null; then
	not_ok daemon-term "the daemon still runs 30 s after SIGTERM" "$(show "$base/output")"
	kill -KILL "$dpid"
else
	ok daemon-term
fi
# no session left behind
sleep 0.2
left=$(pgrep -f -- "-o $TMP/out.fifo" || true)
if [ -n "$left" ]; then
	not_ok daemon-term-sessions "sessions left running: $left"
	kill -KILL $left
else
	ok daemon-term-sessions
fi

# a config that is not there: one line naming it, non-zero exit
run daemon-noconfig "$PCL" daemon --config "$TMP/no-such.config"
if [ "$RC" -ne 0 ] && grep -q "no-such.config" "$TMP/daemon-noconfig.err" &&
	[ "$(wc -l <"$TMP/daemon-noconfig.err")" -eq 1 ]; then
	ok daemon-noconfig
else
	not_ok daemon-noconfig "exit $RC" "$(cat "$TMP/daemon-noconfig.err")"
fi
