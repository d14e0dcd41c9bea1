#!/usr/bin/env bash
# Deep call graphs, exactly as perf prints them. bench/deep.c (an
# interpreter over a fixed tree, frame pointers) gives -g chains of 60 to
# 127 frames that share most of their paths, with many branches of equal
# weight. On perf's recording, pcl report --stdio must print perf report
# --stdio's lines exactly (the '#' header and tip lines aside), in the
# children, --no-children and -g caller modes. The short recording has many
# ties, which must come in perf's order: entries of equal weight by their
# sort keys, an address in no map after every DSO; call-graph branches of
# equal weight by DSO, then address, descending. Graphs deeper than perf's
# 32-level mask are checked by test-hist (test_report_deep_graph).
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-deep "perf is not installed"
	exit 0
fi
if ! command -v cc >/dev/null 2>&1; then
	skip report-deep "no C compiler (cc) to build bench/deep.c"
	exit 0
fi
SRC=$(dirname "$0")/../../bench/deep.c
if ! cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$TMP/deep" "$SRC" 2>"$TMP/cc.err"; then
	not_ok report-deep-build "bench/deep.c does not build: $(head -1 "$TMP/cc.err")"
	exit 0
fi
if ! perf record -q -e cpu-clock -F 2000 -g -o "$TMP/deep.data" "$TMP/deep" 1 \
	>/dev/null 2>"$TMP/rec.err"; then
	skip report-deep "perf record failed: $(head -1 "$TMP/rec.err")"
	exit 0
fi
for mode in children no-children caller; do
	case $mode in
	children) args=() ;;
	no-children) args=(--no-children) ;;
	caller) args=(-g caller) ;;
	esac
	perf report -i "$TMP/deep.data" --stdio "${args[@]}" 2>/dev/null | grep -v '^#' >"$TMP/perf.$mode"
	"$PCL" report -i "$TMP/deep.data" --stdio "${args[@]}" 2>"$TMP/pcl.err" | grep -v '^#' >"$TMP/pcl.$mode"
	if cmp -s "$TMP/perf.$mode" "$TMP/pcl.$mode"; then
		ok "report-deep-$mode"
	else
		not_ok "report-deep-$mode" "pcl differs from perf ($(wc -l <"$TMP/perf.$mode") lines): $(diff "$TMP/perf.$mode" "$TMP/pcl.$mode" | head -4 | tr '\n' ' ')"
	fi
done
