#!/usr/bin/env bash
# An event's own terms (-e 'cpu-clock/max-stack=3/'): the attr pcl record
# writes equals the one perf record 6.1 writes for the same spec, as perf
# evlist -v shows both (and so for the period's place, -c, -P); the call chains they ask for are in the samples;
# the terms pcl cannot apply per event are refused, never dropped.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip event-terms "perf is not installed"
	exit 0
fi
spin=$(workload spin) || { not_ok event-terms-workload "cannot build tests/workloads/spin.c"; exit 0; }

# attr_fields FILE: the fields the terms set, from perf evlist -v of FILE's first event
attr_fields() {
	perf evlist -v -i "$1" 2>/dev/null | head -1 |
		grep -oE 'sample_type: [A-Z_|]+|sample_max_stack: [0-9]+|sample_stack_user: [0-9]+|sample_regs_user: [0-9a-fx]+|exclude_callchain_user: 1|exclude_kernel: 1|sample_period, sample_freq \}: [0-9]+' |
		tr '\n' ' '
}

# same_attr NAME WHAT PERF_FILE PCL_FILE PERF_ERR PCL_ERR: pcl's recording
# (its run's exit in $RC) has the fields perf's has; WHAT says what ran.
same_attr() {
	local name=$1 what=$2 want got
	want=$(attr_fields "$3")
	got=$(attr_fields "$4")
	if [ -z "$want" ]; then
		skip "$name" "oracle: perf record $what wrote no event: $(head -1 "$5")"
		return
	fi
	# perf adds the data source and address to every DWARF sample (not the term's doing)
	want=${want//|ADDR|/|}
	want=${want//|DATA_SRC/}
	if [ "$RC" -eq 0 ] && [ "$want" = "$got" ]; then
		ok "$name ($what)"
	else
		not_ok "$name" "pcl record $what (exit $RC): the attr differs from perf's" \
			"perf: $want" "pcl:  $got" "$(show "$6")"
	fi
}

n=0
for spec in 'cpu-clock/max-stack=3/' 'cpu-clock/call-graph=fp/' 'task-clock/call-graph=dwarf/' \
	'task-clock/call-graph=dwarf,stack-size=4096/' 'cpu-clock/period=100000/u' \
	'sched:sched_switch'; do
	n=$((n + 1))
	perf record -q -o "$TMP/p$n.data" -e "$spec" -- "$spin" 200 >/dev/null 2>"$TMP/p$n.err"
	# (--no-fp-leaf: the leaf repair's stack copy is pcl's own, t-fpleaf.sh)
	run "c$n" "$PCL" record -N -q --no-fp-leaf -o "$TMP/c$n.data" -e "$spec" -- "$spin" 200
	same_attr "event-terms-$n" "-e '$spec'" "$TMP/p$n.data" "$TMP/c$n.data" "$TMP/p$n.err" "$TMP/c$n.err"
done

# The period in the samples, as perf decides it: where it varies (-F) and
# for tracepoints; not for a fixed one (-c, period=, a breakpoint's), unless
# -P asks for it.
n=0
for args in "-c 100000 -e task-clock" "-c 100000 -P -e task-clock" "-P -e task-clock" \
	"-e mem:0x1000"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	perf record -q -o "$TMP/pp$n.data" $args -- "$spin" 100 >/dev/null 2>"$TMP/pp$n.err"
	# shellcheck disable=SC2086
	run "cp$n" "$PCL" record -N -q -o "$TMP/cp$n.data" $args -- "$spin" 100
	same_attr "event-terms-period-$n" "$args" "$TMP/pp$n.data" "$TMP/cp$n.data" "$TMP/pp$n.err" "$TMP/cp$n.err"
done

# max-stack=3: every sample's chain has at most 3 entries, and some have 2 or more
"$PCL" script -i "$TMP/c1.data" -F ip 2>/dev/null |
	awk 'NF == 0 { if (k) { n++; if (k > max) max = k; if (k > 1) deep++ }; k = 0; next } { k++ }
	     END { if (k) { n++; if (k > max) max = k; if (k > 1) deep++ }; print n + 0, max + 0, deep + 0 }' \
	>"$TMP/depth"
read -r samples max deep <"$TMP/depth"
if [ "$samples" -gt 0 ] && [ "$max" -le 3 ] && [ "$deep" -gt 0 ]; then
	ok "event-terms-max-stack-chains ($samples samples, deepest $max)"
else
	not_ok event-terms-max-stack-chains "max-stack=3: $samples samples, deepest chain $max, $deep with 2 or more frames"
fi

# the terms pcl does not apply per event: refused by name
for spec in 'cpu-clock/call-graph=no/' 'cpu-clock/inherit=0/' 'cpu-clock/time=0/' \
	'cpu-clock/overwrite/' 'cpu-clock/aux-output/'; do
	term=${spec#cpu-clock/}
	term=${term%%[=/]*}
	run "r-$term" "$PCL" record -N -q -o "$TMP/r.data" -e "$spec" -- true
	if [ "$RC" -ne 0 ] && grep -q "term '$term.*' is not supported by pcl" "$TMP/r-$term.err"; then
		ok "event-terms-refused-$term"
	else
		not_ok "event-terms-refused-$term" "pcl record -e '$spec': exit $RC" "$(show "$TMP/r-$term.err")"
	fi
done
exit 0
