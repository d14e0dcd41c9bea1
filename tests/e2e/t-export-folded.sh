#!/usr/bin/env bash
# pcl report --format=folded carries the same stacks and counts as perf's
# own view of the same file: perf script's output folded the way FlameGraph's
# stackcollapse-perf.pl folds it (fold in lib.sh), for files recorded by
# perf and by pcl, of a CPU-bound workload with a known hot path (hot), a
# threaded one (threads) and a forking one (forks). A PLT slot is one name
# whatever each tool calls it (the documented deliberate difference). Also:
# the filters apply, -o writes the file whole, and a bad -o fails cleanly.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip export-folded "perf is not installed"
	exit 0
fi
# canon < folded: PLT slots as one name, the lines summed again and sorted.
canon() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); s = $0
		k = split(s, f, ";"); s = ""
		for (i = 1; i <= k; i++) {
			if (i > 1 && (f[i] == "_init" || f[i] ~ /@plt$/)) f[i] = "[plt slot]"
			s = s (i > 1 ? ";" : "") f[i]
		}
		c[s] += n }
		END { for (s in c) print s, c[s] }' | sort
}
# compare ID FILE: pcl's folded export of FILE against perf script | fold.
compare() {
	local id=$1 f=$2
	run_long "$id.perf" 60 perf script -i "$f"
	if [ "$RC" -ne 0 ]; then
		not_ok "export-folded-$id" "oracle: perf script -i $f: exit $RC" "$(show "$TMP/$id.perf.err")"
		return 1
	fi
	run_long "$id.pcl" 60 "$PCL" report -i "$f" --format=folded
	if [ "$RC" -ne 0 ] || crashed "$TMP/$id.pcl.err" "$RC"; then
		not_ok "export-folded-$id" "pcl report --format=folded: exit $RC (want 0)" "$(show "$TMP/$id.pcl.err")"
		return 1
	fi
	fold <"$TMP/$id.perf.out" | canon >"$TMP/$id.perf.folded"
	canon <"$TMP/$id.pcl.out" >"$TMP/$id.pcl.folded"
	if [ ! -s "$TMP/$id.perf.folded" ]; then
		not_ok "export-folded-$id" "oracle: perf script of $f folds to nothing"
		return 1
	fi
	diff_or_ok "export-folded-$id" "$TMP/$id.perf.folded" "$TMP/$id.pcl.folded" \
		"perf script | fold" "pcl report --format=folded"
}

if ! hotfp=$(workload_fp hot); then
	skip export-folded-hot "clang is not installed (scripts/deps.sh)"
	hotfp=$(workload hot)
fi
threads=$(workload threads)
forks=$(workload forks)
for by in perf pcl; do
	record_to export-folded "$by" hot-$by -g -F 4000 -o "$TMP/hot-$by.data" -- "$hotfp" 300 &&
		compare "hot-$by" "$TMP/hot-$by.data"
	record_to export-folded "$by" threads-$by -g -F 2000 -o "$TMP/threads-$by.data" -- "$threads" &&
		compare "threads-$by" "$TMP/threads-$by.data"
	record_to export-folded "$by" forks-$by -g -F 2000 -o "$TMP/forks-$by.data" -- "$forks" &&
		compare "forks-$by" "$TMP/forks-$by.data"
done

# The hot path is there with most of the samples.
if [ -s "$TMP/hot-pcl.pcl.out" ]; then
	want="$(basename "$hotfp");__libc_start_call_main;main;outer;middle;hot_leaf"
	hot=$(awk -v w="$want" '$1 == w { print $2 }' "$TMP/hot-pcl.pcl.out")
	all=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/hot-pcl.pcl.out")
	if [ -n "$hot" ] && [ "$all" -gt 0 ] && [ $((hot * 100 / all)) -ge 50 ]; then
		ok export-folded-hot-path
	else
		not_ok export-folded-hot-path "want '$want' with most of $all samples, got '${hot:-none}'" \
			"$(sort -k2 -nr "$TMP/hot-pcl.pcl.out" | head -5)"
	fi
	# --comm keeps that command's stacks only; -o writes the same text
	run cf "$PCL" report -i "$TMP/hot-pcl.data" --format=folded --comm=nosuchcomm
	if [ "$RC" -eq 0 ] && [ ! -s "$TMP/cf.out" ]; then ok export-folded-filter; else
		not_ok export-folded-filter "--comm=nosuchcomm: exit $RC, $(wc -l <"$TMP/cf.out") lines (want 0, 0)"
	fi
	run co "$PCL" report -i "$TMP/hot-pcl.data" --format=folded -o "$TMP/out.folded"
	if [ "$RC" -eq 0 ] && [ ! -s "$TMP/co.out" ] && cmp -s "$TMP/out.folded" "$TMP/hot-pcl.pcl.out"; then
		ok export-folded-output
	else
		not_ok export-folded-output "-o: exit $RC; file equal to stdout's: $(cmp -s "$TMP/out.folded" "$TMP/hot-pcl.pcl.out" && echo yes || echo no)"
	fi
	run cb "$PCL" report -i "$TMP/hot-pcl.data" --format=folded -o "$TMP/no/such/dir/x.folded"
	if [ "$RC" -ne 0 ] && ! crashed "$TMP/cb.err" "$RC" && [ "$(wc -l <"$TMP/cb.err")" -eq 1 ] &&
		grep -q "no/such/dir" "$TMP/cb.err"; then
		ok export-folded-bad-output
	else
		not_ok export-folded-bad-output "-o into a missing directory: exit $RC, want one line naming it:" "$(show "$TMP/cb.err")"
	fi
	run cx "$PCL" report -i "$TMP/hot-pcl.data" --format=nosuch
	if [ "$RC" -eq 2 ] && grep -q "unknown format 'nosuch'" "$TMP/cx.err"; then ok export-format-unknown; else
		not_ok export-format-unknown "--format=nosuch: exit $RC (want 2)" "$(show "$TMP/cx.err")"
	fi
	run ce "$PCL" report -i "$TMP/hot-pcl.data" --format=folded --event=nosuch
	if [ "$RC" -eq 1 ] && grep -q "no event 'nosuch'" "$TMP/ce.err"; then ok export-event-unknown; else
		not_ok export-event-unknown "--event=nosuch: exit $RC (want 1)" "$(show "$TMP/ce.err")"
	fi
fi
