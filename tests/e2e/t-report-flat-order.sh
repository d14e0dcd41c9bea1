#!/usr/bin/env bash
# pcl report -g flat and -g folded list an entry's chains in perf 6.1's
# order, byte for byte: by the hits of the chain's last node (its self),
# heaviest first, and chains of EQUAL hits in the order perf's call tree
# is walked (a node after its children, siblings by the greatest frame
# key first: DSO, then symbol start), not by the weight of the branches
# they are on. A fixed-period (-c) recording of kernel work has many
# chains of one sample each, so many ties; every chain shown (,0).
# Also -G: caller order whatever -g says, before or after it (perf applies
# it last).
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-flat-order "perf is not installed"
	exit 0
fi
kt=$(workload kernel-time) || { not_ok report-flat-order-workload "cannot build tests/workloads/kernel-time.c"; exit 0; }
F=$TMP/k.data
record_to report-flat-order perf k -N -g -e task-clock -c 100000 -o "$F" -- "$kt" 300 || exit 0

# ties NAME FILE: perf's folded output must have two chains of one entry with
# the same value next to each other, or the order checks prove little
perf report --stdio --no-children -g folded,0 -i "$F" 2>/dev/null | grep -v '^#' >"$TMP/ties"
if ! awk '/^ +[0-9.]+% +/ { prev = ""; next } $1 ~ /%$/ { if ($1 == prev) { found = 1 } prev = $1 } END { exit !found }' "$TMP/ties"; then
	skip report-flat-order "perf's folded output of the recording has no two chains of equal hits in one entry: nothing to order"
	exit 0
fi

for g in flat,0 folded,0; do
	for mode in "" "--no-children" "--no-children -G" "-G-after"; do
		name=report-flat-order-${g%,0}$(echo "$mode" | tr -c 'a-zA-Z0-9\n' -)
		args=($mode -g $g)
		[ "$mode" = -G-after ] && args=(--no-children -g $g -G)
		mode=${args[*]}
		perf report --stdio "${args[@]}" -i "$F" 2>/dev/null | grep -v '^#' >"$TMP/o.perf"
		run o "$PCL" report --stdio "${args[@]}" -i "$F"
		if [ "$RC" -ne 0 ] || crashed "$TMP/o.err" "$RC"; then
			not_ok "$name" "pcl report $mode exited $RC:" "$(show "$TMP/o.err")"
			continue
		fi
		grep -v '^#' "$TMP/o.out" >"$TMP/o.pcl"
		if cmp -s "$TMP/o.perf" "$TMP/o.pcl"; then ok "$name"; else
			not_ok "$name" "report --stdio $mode: pcl's chains differ from perf's (equal ones must come in perf's order):" \
				"$(diff -u --label perf --label pcl "$TMP/o.perf" "$TMP/o.pcl" | head -40)"
		fi
	done
done
