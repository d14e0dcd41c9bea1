#!/usr/bin/env bash
# pcl report --format=folded gives what `perf script | stackcollapse-perf.pl`
# (FlameGraph) gives on the same file. With the real script on PATH, the two
# are compared line for line on files recorded by perf and by pcl (-F and
# -c), of a CPU-bound workload with a known hot path (hot), a threaded one
# (threads) and a forking one (forks); a PLT slot is one name whatever each
# tool calls it (the documented deliberate difference). FlameGraph is not
# packaged, so without it that comparison is skipped, and the script's rules
# are checked by themselves: on crafted stacks in tests/unit/test-profile.c,
# and here against perf script's own numbers: values are the sums of the
# periods perf script prints, and an unsymbolized frame is named by its DSO.
# Also: the filters apply, -o writes the file whole, and a bad -o fails cleanly.
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
		END { for (s in c) print s, c[s] }' | LC_ALL=C sort
}
# export ID FILE: pcl's folded export of FILE into $TMP/ID.pcl.out.
export_folded() {
	run_long "$1.pcl" 60 "$PCL" report -i "$2" --format=folded
	if [ "$RC" -ne 0 ] || crashed "$TMP/$1.pcl.err" "$RC"; then
		not_ok "export-folded-$1" "pcl report --format=folded: exit $RC (want 0)" "$(show "$TMP/$1.pcl.err")"
		return 1
	fi
}
# compare ID FILE: pcl's folded export of FILE against perf script | stackcollapse-perf.pl.
compare() {
	local id=$1 f=$2
	export_folded "$id" "$f" || return 1
	[ -n "$STACKCOLLAPSE" ] || return 0
	run_long "$id.perf" 60 perf script -i "$f"
	if [ "$RC" -ne 0 ]; then
		not_ok "export-folded-$id" "oracle: perf script -i $f: exit $RC" "$(show "$TMP/$id.perf.err")"
		return 1
	fi
	"$STACKCOLLAPSE" <"$TMP/$id.perf.out" | canon >"$TMP/$id.perf.folded"
	canon <"$TMP/$id.pcl.out" >"$TMP/$id.pcl.folded"
	if [ ! -s "$TMP/$id.perf.folded" ]; then
		not_ok "export-folded-$id" "oracle: perf script of $f folds to nothing"
		return 1
	fi
	diff_or_ok "export-folded-$id" "$TMP/$id.perf.folded" "$TMP/$id.pcl.folded" \
		"perf script | stackcollapse-perf.pl" "pcl report --format=folded"
}

STACKCOLLAPSE=$(command -v stackcollapse-perf.pl || true)
[ -n "$STACKCOLLAPSE" ] ||
	skip export-folded-stackcollapse "stackcollapse-perf.pl is not on PATH (FlameGraph is not packaged in Debian or npm); its rules are checked one by one instead"
if ! hotfp=$(workload_fp hot); then
	skip export-folded-hot "clang is not installed (scripts/deps.sh)"
	hotfp=$(workload hot)
fi
threads=$(workload threads)
forks=$(workload forks)
for by in perf pcl; do
	record_to export-folded "$by" hot-$by -g -F 4000 -o "$TMP/hot-$by.data" -- "$hotfp" 300 &&
		compare "hot-$by" "$TMP/hot-$by.data"
	record_to export-folded "$by" hotc-$by -g -c 200000 -o "$TMP/hotc-$by.data" -- "$hotfp" 200 &&
		compare "hotc-$by" "$TMP/hotc-$by.data"
	record_to export-folded "$by" threads-$by -g -F 2000 -o "$TMP/threads-$by.data" -- "$threads" &&
		compare "threads-$by" "$TMP/threads-$by.data"
	record_to export-folded "$by" forks-$by -g -F 2000 -o "$TMP/forks-$by.data" -- "$forks" &&
		compare "forks-$by" "$TMP/forks-$by.data"
done

# periods ID: the values are the periods perf script prints, summed per
# command (stackcollapse-perf.pl sums them; it does not count samples).
periods() {
	local id=$1 want got
	[ -s "$TMP/$id.pcl.out" ] || return 0
	if ! run_long "$id.per" 60 perf script -i "$TMP/$id.data" -F comm,period ||
		[ "$RC" -ne 0 ]; then
		not_ok "export-folded-periods-$id" "oracle: perf script -F comm,period: exit $RC"
		return
	fi
	want=$(awk '{ p = $NF; $NF = ""; sub(/ +$/, ""); gsub(/ /, "_"); s[$0] += p }
		END { for (c in s) print c, s[c] }' "$TMP/$id.per.out" | LC_ALL=C sort)
	got=$(awk '{ split($1, f, ";"); s[f[1]] += $NF } END { for (c in s) print c, s[c] }' \
		"$TMP/$id.pcl.out" | LC_ALL=C sort)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "export-folded-periods-$id"
	else
		not_ok "export-folded-periods-$id" "per command, perf script's period sums vs pcl's folded values:" \
			"want: $want" "got:  $got"
	fi
}
# -F on page faults: the kernel varies the period from sample to sample
touch_pages=$(workload touch-pages)
for by in perf pcl; do
	record_to export-folded "$by" pf-$by -e page-faults -F 4000 -g -o "$TMP/pf-$by.data" -- \
		"$touch_pages" 20000 && export_folded "pf-$by" "$TMP/pf-$by.data" &&
		compare "pf-$by" "$TMP/pf-$by.data"
done
# -c: each sample is worth 200000; cpu-clock -F: about 250000 each
for id in hot-perf hot-pcl hotc-perf hotc-pcl forks-pcl pf-perf pf-pcl; do
	periods "$id"
done
# the page-fault samples' periods differ, or that check proves little
if [ -s "$TMP/pf-pcl.per.out" ]; then
	if [ "$(awk '{ print $NF }' "$TMP/pf-pcl.per.out" | sort -u | wc -l)" -ge 2 ]; then
		ok export-folded-periods-unequal
	else
		not_ok export-folded-periods-unequal "the page-fault samples all have one period:" "$(show "$TMP/pf-pcl.per.out" 5)"
	fi
fi

# An executable without symbols (nor a build-id that would find them in
# perf's cache): perf script shows its frames as "[unknown] (/path/hotstrip)",
# which the script names "[hotstrip]".
cp "$hotfp" "$TMP/hotstrip" && strip --strip-all --remove-section=.note.gnu.build-id "$TMP/hotstrip"
if record_to export-folded pcl hotstrip -g -c 200000 -o "$TMP/hotstrip.data" -- "$TMP/hotstrip" 200 &&
	export_folded hotstrip "$TMP/hotstrip.data"; then
	run_long hotstrip.perf 60 perf script -i "$TMP/hotstrip.data"
	# the period of the samples with a frame in hotstrip, by perf script
	want=$(awk '/^[^ \t]/ { p = 0; for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/ && $(i + 1) ~ /:$/) p = $i }
		/\[unknown\] \(.*\/hotstrip\)$/ { s += p; p = 0 }
		END { print s + 0 }' "$TMP/hotstrip.perf.out")
	got=$(awk '/;\[hotstrip\]/ { s += $NF } END { print s + 0 }' "$TMP/hotstrip.pcl.out")
	if [ "$want" -gt 0 ] && [ "$want" = "$got" ]; then
		ok export-folded-unknown-dso
	else
		not_ok export-folded-unknown-dso "want the samples perf script shows in '[unknown] (.../hotstrip)', period $want, in frames named [hotstrip]; got $got:" \
			"$(show "$TMP/hotstrip.pcl.out" 6)"
	fi
fi

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
