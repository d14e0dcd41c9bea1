#!/usr/bin/env bash
# -e u:BIN:FUNC on a target that forks: the kernel makes an inherited
# uprobe PMU event again at each fork, reading its path from the forking
# process's memory, so inheriting it made every fork of the program fail
# ("sh: Cannot fork"). pcl opens such events without inherit instead: the
# program runs as it would without pcl, and a note says that the threads
# and children it starts are not counted.
. "$(dirname "$0")/lib.sh"

if [ ! -e /sys/bus/event_source/devices/uprobe/type ]; then
	skip uprobe-fork "this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe)"
	exit 0
fi
libc=$(ldd /bin/sh 2>/dev/null | awk '/libc\.so/ { print $3; exit }')
if [ ! -f "$libc" ]; then
	skip uprobe-fork "cannot find the libc /bin/sh uses"
	exit 0
fi

for cmd in stat record; do
	args=()
	[ $cmd = record ] && args=(-N -o "$TMP/u.data")
	run $cmd "$PCL" $cmd "${args[@]}" -e "u:$libc:malloc" -- sh -c '/bin/true && echo forked'
	if [ $RC = 0 ] && grep -qx forked "$TMP/$cmd.out" && ! grep -qi "cannot fork" "$TMP/$cmd.err"; then
		ok "uprobe-fork-$cmd-runs"
	else
		not_ok "uprobe-fork-$cmd-runs" "rc=$RC; the command's fork must work" \
			"$(show "$TMP/$cmd.out")" "$(show "$TMP/$cmd.err")"
	fi
	if [ "$(grep -c "^pcl: note: 'u:$libc:malloc': the uprobe PMU cannot follow" "$TMP/$cmd.err")" = 1 ]; then
		ok "uprobe-fork-$cmd-note"
	else
		not_ok "uprobe-fork-$cmd-note" "want one note that children are not counted" "$(show "$TMP/$cmd.err")"
	fi
done
# -i asked for it: no note
run ni "$PCL" stat -i -e "u:$libc:malloc" -- true
if [ $RC = 0 ] && ! grep -q "^pcl: note" "$TMP/ni.err"; then ok uprobe-fork-no-inherit-quiet; else
	not_ok uprobe-fork-no-inherit-quiet "rc=$RC" "$(show "$TMP/ni.err")"
fi
