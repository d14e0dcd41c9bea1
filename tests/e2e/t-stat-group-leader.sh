#!/usr/bin/env bash
# pcl stat with a group whose leader this machine cannot count, against
# perf 6.1: perf refuses '{cycles,task-clock,page-faults}' ("The cycles
# event is not supported.", no counts, non-zero exit), and so does pcl (one
# "pcl: ..." line naming cycles). A member that cannot be counted does not
# stop its group (pcl counts the rest; perf 6.1 prints them <not counted>).
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok stat-group-leader-pcl-built "no executable at $PCL"
	exit 0
fi
# A member the kernel refuses with EINVAL (only a leader may be pinned,
# :D) is left out; the leader's fd already reads the group's layout, and
# the rest of the group is counted.
spec='{task-clock,sched:sched_switch:D,page-faults}'
run pin "$PCL" stat -e "$spec" -- true
if ! grep -q 'sched:sched_switch' "$TMP/pin.err"; then
	skip stat-group-member-refused "no tracepoint sched:sched_switch here (tracefs)"
elif [ "$RC" -eq 0 ] && grep -qE '^ +[0-9.]+ +msec task-clock' "$TMP/pin.err" &&
	grep -qE '<not supported> +sched:sched_switch' "$TMP/pin.err" &&
	grep -qE '^ +[0-9]+ +page-faults' "$TMP/pin.err"; then
	ok stat-group-member-refused
else
	not_ok stat-group-member-refused \
		"pcl stat -e '$spec' -- true: exit $RC; want 0, task-clock and page-faults counted, sched:sched_switch <not supported>:" \
		"$(show "$TMP/pin.err")"
fi

run cyc "$PCL" stat -e cycles -- true
if ! grep -qE '<not supported> +cycles' "$TMP/cyc.err"; then
	skip stat-group-leader-unsupported "cycles can be counted here (a hardware PMU)"
	skip stat-group-member-unsupported "cycles can be counted here (a hardware PMU)"
	exit 0
fi

spec='{cycles,task-clock,page-faults}'
run pcl "$PCL" stat -e "$spec" -- true
pcl_rc=$RC
pcl_lines=$(grep -c . "$TMP/pcl.err")
if have_perf; then
	run perf perf stat -e "$spec" -- true
	perf_rc=$RC
else
	perf_rc=255 # what perf 6.1 exits with here
fi
if [ "$pcl_rc" -ne 0 ] && [ "$perf_rc" -ne 0 ] && ! crashed "$TMP/pcl.err" "$pcl_rc" &&
	[ "$pcl_lines" -eq 1 ] && grep -q "^pcl: event 'cycles' is not supported" "$TMP/pcl.err" &&
	! grep -q 'task-clock' "$TMP/pcl.out" && ! grep -q 'msec task-clock' "$TMP/pcl.err"; then
	ok stat-group-leader-unsupported
else
	not_ok stat-group-leader-unsupported \
		"pcl stat -e '$spec' -- true: exit $pcl_rc, $pcl_lines stderr lines; want non-zero and one line 'pcl: event 'cycles' is not supported...', no counts, as perf (exit $perf_rc):" \
		"pcl:" "$(show "$TMP/pcl.err")" "perf:" "$(show "$TMP/perf.err" 2>/dev/null)"
fi

spec='{task-clock,cycles,page-faults}'
run mem "$PCL" stat -e "$spec" -- true
if [ "$RC" -eq 0 ] && grep -qE '^ +[0-9.]+ +msec task-clock' "$TMP/mem.err" &&
	grep -qE '<not supported> +cycles' "$TMP/mem.err" && grep -qE '^ +[0-9]+ +page-faults' "$TMP/mem.err"; then
	ok stat-group-member-unsupported
else
	not_ok stat-group-member-unsupported \
		"pcl stat -e '$spec' -- true: exit $RC; want 0, task-clock and page-faults counted, cycles <not supported>:" \
		"$(show "$TMP/mem.err")"
fi
