#!/usr/bin/env bash
# DWARF unwinding is never silent. tests/workloads/unwind "deep" spends half
# its time 24 frames of 1 KiB deep, half in a shallow chain; recorded by pcl
# with --call-graph dwarf,1024 the deep samples stop at the end of the
# stack copy.
#   unwind-stack-warn     pcl script: one warning with the counts by cause,
#                         and the --call-graph dwarf,SIZE hint (SIZE a
#                         multiple of 8, at most 65528)
#   unwind-stack-header   pcl report: the same counts in its '#' header, the
#                         hint there too, nothing on stderr
#   unwind-stack-stats    pcl report --stats: the counts by cause
#   unwind-stack-exports  pcl report --format folded and pcl diff: the warning
#   unwind-stack-enough   recorded again with the hinted SIZE, every sample
#                         unwinds completely (pcl) ...
#   unwind-stack-perf     ... and pcl script prints what perf script does
. "$(dirname "$0")/lib.sh"

export PERF_BUILDID_DIR="$TMP/buildid-cache"
mkdir -p "$PERF_BUILDID_DIR"
bin=$WORKLOADS/unwind-nofp
[ -x "$bin" ] || { skip unwind-stack "$bin is not built (make tests)"; exit 0; }
record_to unwind-stack pcl small -e cpu-clock -F 2000 --call-graph dwarf,1024 -o "$TMP/small.data" -- "$bin" 400 deep ||
	exit 0

run_long script 60 "$PCL" script -i "$TMP/small.data"
nwarn=$(grep -c 'DWARF unwinding: .* stopped early' "$TMP/script.err")
small=$(sed -n 's/.*stack copy too small: \([0-9]*\).*/\1/p' "$TMP/script.err" | head -1)
size=$(sed -n 's/.*--call-graph dwarf,\([0-9]*\).*/\1/p' "$TMP/script.err" | head -1)
if [ "$RC" -eq 0 ] && [ "$nwarn" -eq 1 ] && [ -n "$small" ] && [ "$small" -gt 0 ] &&
	[ -n "$size" ] && [ $((size % 8)) -eq 0 ] && [ "$size" -le 65528 ] && [ "$size" -gt 1024 ]; then
	ok unwind-stack-warn
else
	not_ok unwind-stack-warn "want one warning with 'stack copy too small: N' and a dwarf,SIZE hint" \
		"exit $RC" "$(show "$TMP/script.err")"
	exit 0
fi

run_long report 60 "$PCL" report --stdio -i "$TMP/small.data"
if [ "$RC" -eq 0 ] && [ ! -s "$TMP/report.err" ] &&
	grep -q "^# DWARF unwinding: .*stack copy too small: $small" "$TMP/report.out" &&
	grep -q "^# .*--call-graph dwarf,$size" "$TMP/report.out"; then
	ok unwind-stack-header
else
	not_ok unwind-stack-header "want '# DWARF unwinding: ... stack copy too small: $small' and the dwarf,$size hint in the header, stderr empty" \
		"$(show "$TMP/report.out" 12)" "stderr:" "$(show "$TMP/report.err")"
fi

run_long stats 60 "$PCL" report --stats -i "$TMP/small.data"
if grep -qE "^ *stack copy too small: +$small " "$TMP/stats.out" && grep -qE '^ *complete: +[1-9]' "$TMP/stats.out"; then
	ok unwind-stack-stats
else
	not_ok unwind-stack-stats "want 'stack copy too small: $small' and complete samples in --stats" "$(show "$TMP/stats.out" 40)"
fi

run_long folded 60 "$PCL" report --format folded -i "$TMP/small.data"
run_long diff 60 "$PCL" diff "$TMP/small.data" "$TMP/small.data"
if [ "$(grep -c "stack copy too small: $small" "$TMP/folded.err")" -eq 1 ] &&
	[ "$(grep -c "'$TMP/small.data': DWARF unwinding: .* stopped early.*stack copy too small: $small" "$TMP/diff.err")" -eq 2 ]; then
	ok unwind-stack-exports
else
	not_ok unwind-stack-exports "want the warning once from the export and once per file from diff" \
		"folded:" "$(show "$TMP/folded.err")" "diff:" "$(show "$TMP/diff.err")"
fi

record_to unwind-stack pcl big -e cpu-clock -F 2000 --call-graph "dwarf,$size" -o "$TMP/big.data" -- "$bin" 400 deep ||
	exit 0
run_long stats2 60 "$PCL" report --stats -i "$TMP/big.data"
if grep -qE '^ *stack copy too small: +0 ' "$TMP/stats2.out"; then
	ok unwind-stack-enough
else
	not_ok unwind-stack-enough "with --call-graph dwarf,$size no sample should stop at the end of the copy" \
		"$(grep -A12 'DWARF unwind' "$TMP/stats2.out")"
fi

if have_perf; then
	run_long pscript 120 perf script --no-inline -i "$TMP/big.data"
	run_long cscript 120 "$PCL" script -i "$TMP/big.data"
	if [ -s "$TMP/pscript.out" ] && diff -q "$TMP/pscript.out" "$TMP/cscript.out" >/dev/null; then
		ok unwind-stack-perf
	else
		not_ok unwind-stack-perf "pcl script differs from perf script --no-inline on a dwarf,$size file" \
			"$(diff -u --label perf --label pcl "$TMP/pscript.out" "$TMP/cscript.out" | head -30)"
	fi
else
	skip unwind-stack-perf "perf is not installed"
fi
