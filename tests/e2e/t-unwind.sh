#!/usr/bin/env bash
# DWARF unwinding (--call-graph dwarf) against perf, on the same files.
# tests/workloads/unwind.c built four ways by the Makefile (no frame
# pointers; stage2 inlined; stripped with the debug file found by build id
# under a --symfs root; stripped with one found by .gnu_debuglink), each
# recorded by perf and by pcl. For each file:
#   unwind-VARIANT-BY-children  pcl report --children: the top entries'
#                               children and self within 0.5 points of perf's
#   unwind-VARIANT-BY-callers   the hot function's callers are the known
#                               ones in every sample, in perf script and in
#                               pcl script
#   unwind-VARIANT-BY-script    pcl script prints what perf script prints
#                               (frames, addresses, symbols, objects)
# perf runs with --no-inline: inline frames are not this test's matter.
# Then pcl alone (perf 6.1 does not unwind it): unwind-debugframe, whose
# functions have CFI only in .debug_frame, stripped into a debug file found
# by build id under a --symfs root:
#   unwind-debugframe-callers  with --symfs, the known callers in every sample
#   unwind-debugframe-nocfi    without, the chains stop and pcl says "no CFI"
#                              (libdwfl's frame-pointer guess lands in [stack])
. "$(dirname "$0")/lib.sh"

have_perf || { skip unwind "perf is not installed"; exit 0; }
# perf's build-id cache may hold these builds from other runs: an empty one
export PERF_BUILDID_DIR="$TMP/buildid-cache"
mkdir -p "$PERF_BUILDID_DIR"

# rows FILE: "children self object:symbol" of each entry of a --children report
rows() {
	awk '/^ +[0-9.]+% +[0-9.]+% / { c=$1; s=$2; sub(/%/,"",c); sub(/%/,"",s)
		sym=$0; sub(/.*\[[.k]\] /, "", sym); sub(/ +$/, "", sym); print c, s, $4 ":" sym }' "$1"
}

# top_match PERF PCL N: the N heaviest entries of perf's report are in
# pcl's, children and self within 0.5 points; prints what differs
top_match() {
	rows "$1" | head -"$3" >"$TMP/top.perf"
	rows "$2" >"$TMP/top.pcl"
	awk 'NR == FNR { c[$3] = $1; s[$3] = $2; next }
		{ if (!($3 in c)) { print "missing in pcl: " $0; bad=1; next }
		  dc = c[$3] - $1; ds = s[$3] - $2
		  if (dc > 0.5 || dc < -0.5 || ds > 0.5 || ds < -0.5) {
			printf "%s: perf %s%% %s%%, pcl %s%% %s%%\n", $3, $1, $2, c[$3], s[$3]; bad=1 } }
		END { exit bad }' "$TMP/top.pcl" "$TMP/top.perf"
}

# callers SCRIPT CHAIN: every sample whose user leaf is hot_work has the
# user frames CHAIN (space-separated symbols, leaf first) next; prints the
# first sample that does not, and fails when none has hot_work
callers() {
	awk -v want="$2" 'function check() {
			if (n && sym[1] == "hot_work") { hits++
				k = split(want, w, " ")
				for (i = 1; i <= k; i++) if (sym[i] != w[i]) {
					bad++; if (!shown++) { print "sample: " hdr; for (j = 1; j <= n; j++) print "  " sym[j] } ; break } }
			n = 0 }
		/^[^ \t]/ { check(); hdr = $0; next }
		/^\t/ { if ($NF ~ /kernel/) next; s = $2; sub(/\+0x[0-9a-f]+$/, "", s); sym[++n] = s }
		END { check(); if (!hits) print "no sample in hot_work"; exit !(hits && !bad) }' "$1"
}

variant() { # VARIANT BY BIN CHAIN [--symfs DIR]
	local v=$1 by=$2 bin=$3 chain=$4 id="$1-$2" out
	shift 4
	record_to unwind "$by" "$id" -e cpu-clock -F 2000 --call-graph dwarf -o "$TMP/$id.data" -- "$bin" 400 ||
		return
	run_long "$id.perf-report" 120 perf report --stdio --no-inline --children "$@" -i "$TMP/$id.data"
	run_long "$id.pcl-report" 120 "$PCL" report --stdio --children "$@" -i "$TMP/$id.data"
	if [ ! -s "$TMP/$id.perf-report.out" ]; then
		not_ok "unwind-$id-children" "oracle: perf report failed" "$(show "$TMP/$id.perf-report.err")"
	elif out=$(top_match "$TMP/$id.perf-report.out" "$TMP/$id.pcl-report.out" 8); then
		ok "unwind-$id-children"
	else
		not_ok "unwind-$id-children" "top entries differ by more than 0.5 points:" "$out" \
			"perf:" "$(rows "$TMP/$id.perf-report.out" | head -8)" \
			"pcl:" "$(rows "$TMP/$id.pcl-report.out" | head -8)" "$(show "$TMP/$id.pcl-report.err")"
	fi
	run_long "$id.perf-script" 120 perf script --no-inline "$@" -i "$TMP/$id.data"
	run_long "$id.pcl-script" 120 "$PCL" script "$@" -i "$TMP/$id.data"
	local po pc
	po=$(callers "$TMP/$id.perf-script.out" "$chain")
	local prc=$?
	pc=$(callers "$TMP/$id.pcl-script.out" "$chain")
	local crc=$?
	if [ $prc -eq 0 ] && [ $crc -eq 0 ]; then
		ok "unwind-$id-callers"
	else
		not_ok "unwind-$id-callers" "want hot_work called by: $chain" \
			"perf script: $([ $prc -eq 0 ] && echo ok)" "$po" "pcl script: $([ $crc -eq 0 ] && echo ok)" "$pc"
	fi
	if diff -u --label perf --label pcl "$TMP/$id.perf-script.out" "$TMP/$id.pcl-script.out" \
		>"$TMP/$id.script.diff"; then
		ok "unwind-$id-script"
	else
		not_ok "unwind-$id-script" "pcl script differs from perf script --no-inline:" \
			"$(head -30 "$TMP/$id.script.diff")"
	fi
}

need() {
	[ -x "$WORKLOADS/$1" ] && return 0
	skip "unwind-$1" "$WORKLOADS/$1 is not built (make tests)"
	return 1
}

full="hot_work stage2 stage1 run main"
for by in perf pcl; do
	need unwind-nofp && variant nofp "$by" "$WORKLOADS/unwind-nofp" "$full"
	# stage2 is inlined: without inline frames, stage1 calls hot_work
	need unwind-inline && variant inline "$by" "$WORKLOADS/unwind-inline" "hot_work stage1 run main"
	# found beside it, by its .gnu_debuglink: the names of its static symbols
	need unwind-debuglink && variant debuglink "$by" "$WORKLOADS/unwind-debuglink" "$full"
done

# symfs_root NAME: $TMP/bin-NAME/NAME, a copy of the workload NAME, and the
# root $TMP/root-NAME with that copy at its path and NAME.debug under
# /usr/lib/debug/.build-id only; false (after a skip line) without a build id
symfs_root() {
	local name=$1 root=$TMP/root-$1 bid
	mkdir -p "$TMP/bin-$name" "$root$TMP/bin-$name"
	cp "$WORKLOADS/$name" "$TMP/bin-$name/$name"
	cp "$WORKLOADS/$name" "$root$TMP/bin-$name/$name"
	bid=$(readelf -n "$TMP/bin-$name/$name" | awk '/Build ID:/ { print $3 }')
	if [ -z "$bid" ]; then
		skip "$name" "the linker gave $name no build id"
		return 1
	fi
	mkdir -p "$root/usr/lib/debug/.build-id/${bid:0:2}"
	cp "$WORKLOADS/$name.debug" "$root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
}

# Stripped, its debug file only under a --symfs root's /usr/lib/debug/.build-id
if need unwind-stripped && symfs_root unwind-stripped; then
	for by in perf pcl; do
		variant buildid "$by" "$TMP/bin-unwind-stripped/unwind-stripped" "$full" \
			--symfs "$TMP/root-unwind-stripped"
	done
fi

# Only .debug_frame, only in the debug file under the --symfs root: the CFI
# comes through the symbolizer's debug file (unwind_map.debug_path).
if need unwind-debugframe && symfs_root unwind-debugframe &&
	record_to unwind pcl df -e cpu-clock -F 2000 --call-graph dwarf -o "$TMP/df.data" -- \
		"$TMP/bin-unwind-debugframe/unwind-debugframe" 400; then
	root=$TMP/root-unwind-debugframe
	run_long df-script 120 "$PCL" script --symfs "$root" -i "$TMP/df.data"
	# (libc is not under the root: chains stop there, "address not mapped")
	if out=$(callers "$TMP/df-script.out" "$full") && ! grep -q 'no CFI' "$TMP/df-script.err"; then
		ok unwind-debugframe-callers
	else
		not_ok unwind-debugframe-callers "want hot_work called by: $full, and no 'no CFI'" "$out" \
			"$(show "$TMP/df-script.err")"
	fi
	run_long df-nosymfs 120 "$PCL" script -i "$TMP/df.data"
	if grep -q 'stopped early.*no CFI: [1-9]' "$TMP/df-nosymfs.err"; then
		ok unwind-debugframe-nocfi
	else
		not_ok unwind-debugframe-nocfi "without its debug file: want the 'no CFI' count on stderr" \
			"$(show "$TMP/df-nosymfs.err")"
	fi
fi
