#!/usr/bin/env bash
# pcl report --stdio agrees with perf report --stdio on the same file, for
# files recorded by perf and by pcl record, with and without -g, of five
# workloads: a CPU-bound one with known hot functions (hot), a threaded one
# (threads), a forking and exec'ing one (forks), one that dlopen()s a
# library and spends its time there (dlopen), and one that spends its time
# in the kernel (kernel-time). For each file, with --no-children:
#   NAME         the entries, as (overhead, comm, dso, symbol) tuples, equal
#                as multisets, overheads within 0.01 percentage points;
#   NAME-header  the '# Total Lost Samples:', '# Samples:', '# Event count
#                (approx.):' lines and the column header lines, exactly;
#   NAME-text    the whole output, call graphs included, equal line for
#                line once the overheads (checked by NAME) are masked,
#                entries of equal overhead, and call-graph branches of equal
#                percentage, in any order (their order is free), and perf's
#                random '# (Tip: ...)' trailer dropped; and pcl says nothing
#                on stderr when perf says nothing.
# For the -g files, also the default (--children) mode: NAME-children
# compares the flat (Children, Self, comm, dso, symbol) rows.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-perf "perf is not installed"
	exit 0
fi
if ! has_cmd report; then
	not_ok report-perf-command "'$PCL help' lists no report command (and 'pcl help report' fails)"
	exit 0
fi
command -v perl >/dev/null 2>&1 || { skip report-perf "perl is not installed (the comparison is in perl)"; exit 0; }
. "$(dirname "$0")/report-lib.sh"
# --- workloads ------------------------------------------------------------------
comparison_workloads report-perf || exit 0

for wl in hot threads forks dlopen ktime; do
	for g in "" -g; do
		for by in perf pcl; do
			id=$wl-$by${g:+-g}
			F=$TMP/$id.data
			# perf's side-band thread for BPF events costs a second a
			# recording: once with it (perf's default file), then without.
			bpf=
			[ $by = perf ] && [ "$id" != hot-perf ] && bpf=--no-bpf-event
			# shellcheck disable=SC2086 # CMD holds the command and its arguments
			record_to report-perf $by "$id" $bpf -F 4000 $g -o "$F" -- ${CMD[$wl]} || continue
			report_pair "$id" "$F" --no-children
			compare "report-perf-$id" "$id" "rows header text" "--stdio --no-children on $id.data"
			if [ -n "$g" ]; then
				report_pair "$id-ch" "$F" --children
				compare "report-perf-$id-children" "$id-ch" "rows header" "--stdio --children on $id.data"
			fi
		done
	done
done
