#!/usr/bin/env bash
# The sys layer seen from the command line: tracefs mounted on demand.
. "$(dirname "$0")/lib.sh"

# In a private mount namespace with tracefs unmounted, a tracepoint event makes
# pcl (as root) mount it at /sys/kernel/tracing and count as usual.
if ! command -v unshare >/dev/null; then
	skip "tracefs-mounted-on-demand" "unshare (util-linux) is not installed"
elif ! unshare -m true 2>/dev/null; then
	skip "tracefs-mounted-on-demand" "cannot create a mount namespace here"
else
	out=$(unshare -m sh -c '
		umount -l /sys/kernel/tracing 2>/dev/null
		umount -l /sys/kernel/debug/tracing 2>/dev/null
		umount -l /sys/kernel/debug 2>/dev/null
		if [ -e /sys/kernel/tracing/events ]; then echo "STILL-MOUNTED"; exit 0; fi
		"$1" stat -x, -e syscalls:sys_enter_write -- /bin/echo hi 2>&1 >/dev/null
		[ -e /sys/kernel/tracing/events ] && echo MOUNTED-BY-PCL' sh "$PCL" 2>&1)
	if echo "$out" | grep -q STILL-MOUNTED; then
		skip "tracefs-mounted-on-demand" "tracefs could not be unmounted in the namespace"
	elif echo "$out" | grep -q '^1,,syscalls:sys_enter_write,' && echo "$out" | grep -q MOUNTED-BY-PCL; then
		ok "tracefs-mounted-on-demand"
	else
		not_ok "tracefs-mounted-on-demand" "expected 1 write counted and tracefs mounted by pcl, got:" "$out"
	fi
fi
