#!/usr/bin/env bash
# pcl probe and -e u:BIN:FUNC as a user without CAP_PERFMON: the refusal
# names its real cause. tracefs is mounted but closed to the user (mode
# 700), which is not "tracefs is not mounted"; the uprobe PMU refuses any
# process without CAP_PERFMON whatever perf_event_paranoid says, which is
# not "perf_event_paranoid allows this user".
. "$(dirname "$0")/lib.sh"

PARANOID=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" != 0 ]; then
	skip probe-unpriv "needs root to set $PARANOID and drop privileges"
	exit 0
fi
if ! command -v setpriv >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
	skip probe-unpriv "needs setpriv and a 'nobody' user"
	exit 0
fi
bin=$WORKLOADS/probed
if [ ! -x "$bin" ]; then
	skip probe-unpriv "workload $bin not built (make tests)"
	exit 0
fi
group=$(id -gn nobody)
NOBODY=(setpriv --reuid=nobody --regid="$group" --clear-groups)
saved=$(cat $PARANOID)
pub=$(mktemp -d /tmp/pcl-e2e-pub.XXXXXX)
trap 'echo "$saved" >'"$PARANOID"'; rm -rf "$TMP" "$pub"' EXIT
chmod 755 "$pub"
cp "$PCL" "$bin" "$pub/" && chmod 755 "$pub/pcl" "$pub/probed"
echo -1 >$PARANOID

tfs=/sys/kernel/tracing
if [ -d $tfs/events ] && ! "${NOBODY[@]}" test -r $tfs/uprobe_events 2>/dev/null; then
	run l "${NOBODY[@]}" "$pub/pcl" probe -l
	if [ $RC -ne 0 ] && ! crashed "$TMP/l.err" $RC && grep -q "permission" "$TMP/l.err" &&
		! grep -q "not mounted" "$TMP/l.err"; then
		ok probe-unpriv-tracefs-closed
	else
		not_ok probe-unpriv-tracefs-closed "rc=$RC; want a permission error" "$(show "$TMP/l.err")"
	fi
else
	skip probe-unpriv-tracefs-closed "$tfs is not mounted, or open to nobody"
fi

if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	run u "${NOBODY[@]}" "$pub/pcl" stat -e "u:$pub/probed:probed_add" -- "$pub/probed" 2
	if [ $RC -ne 0 ] && ! crashed "$TMP/u.err" $RC && grep -q "CAP_PERFMON" "$TMP/u.err" &&
		! grep -q "allows this user" "$TMP/u.err"; then
		ok probe-unpriv-uprobe-pmu
	else
		not_ok probe-unpriv-uprobe-pmu "rc=$RC; want the uprobe PMU's CAP_PERFMON named" \
			"$(show "$TMP/u.err")"
	fi
else
	skip probe-unpriv-uprobe-pmu "this kernel has no uprobe PMU"
fi
