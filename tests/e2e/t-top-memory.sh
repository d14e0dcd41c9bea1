#!/bin/bash
# pcl top's memory stays bounded while processes come and go: a shell loop
# starts thousands of short-lived processes under pcl top --stdio -z (zeroed
# at each refresh, so that no entry keeps an exited process), and pcl's
# resident size and its model's thread count (PCL_TOP_DEBUG=1 prints them
# after each refresh) stay flat instead of growing with each process.
# Without pruning, every exited process would leave its threads, map set
# and maps behind: a few MB for each ten thousand processes.
. "$(dirname "$0")/lib.sh"

if ! has_cmd top; then
	skip top-memory "this pcl has no top command"
	exit 0
fi

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
last_pid() { cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo 0; }

(while :; do /bin/true; done) &
LOOP=$!
trap 'kill $LOOP 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.2
# a sanitizer build's quarantine keeps freed memory resident: a small one here
PCL_TOP_DEBUG=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1" "$PCL" top --stdio -z -e cpu-clock -d 1 -p "$LOOP" </dev/null \
	>"$TMP/top.out" 2>"$TMP/top.err" &
TOP=$!
sleep 12
early=$(rss_kb "$TOP")
pid0=$(last_pid)
sleep 30
late=$(rss_kb "$TOP")
pid1=$(last_pid)
kill -INT "$TOP" 2>/dev/null
wait "$TOP"
RC=$?
kill "$LOOP" 2>/dev/null
# processes started between the two measures (pids wrap at pid_max)
spawned=$(((pid1 - pid0 + $(cat /proc/sys/kernel/pid_max)) % $(cat /proc/sys/kernel/pid_max)))
threads=$(grep -o 'threads [0-9]*' "$TMP/top.err" | tail -5 | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')

if [ "$RC" -ne 0 ] || crashed "$TMP/top.err" "$RC" || [ -z "$early" ] || [ -z "$late" ]; then
	not_ok top-memory-runs "exit $RC, RSS '$early' then '$late' kB" "$(show "$TMP/top.err")"
	exit 0
fi
ok top-memory-runs
if [ "$spawned" -lt 2000 ]; then
	skip top-memory-rss "only $spawned processes started in 30 s (want thousands): machine too busy"
	skip top-memory-threads "only $spawned processes started in 30 s"
	exit 0
fi
# slack: 4 MB or 10%, for malloc's arenas and the resolver's caches filling
if [ "$late" -le $((early + early / 10 > early + 4096 ? early + early / 10 : early + 4096)) ]; then
	ok top-memory-rss
else
	not_ok top-memory-rss "RSS grew from $early kB to $late kB while $spawned processes came and went"
fi
# the live ones and those of the last refresh or two (an exited one goes at
# the second prune: its samples may still be in a ring), not every one
if [ "$threads" -le $((spawned / 10)) ]; then
	ok top-memory-threads
else
	not_ok top-memory-threads "$threads threads kept after $spawned processes exited (want at most a tenth)" \
		"$(grep 'pcl top: threads' "$TMP/top.err" | tail -5)"
fi
