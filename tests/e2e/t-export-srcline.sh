#!/usr/bin/env bash
# Source positions in the exports (pprof, Firefox Profiler, speedscope), on
# tests/workloads/srcpos.c built -O2 -g: spin_leaf's hottest line is the
# one marked HOT-LEAF, and step(), inlined into spin_outer, burns on the
# line marked HOT-INLINE, called from the line marked CALL-INLINE. For a
# recording by pcl and one by perf (record -g), each check prefixed by it:
#   BY-pprof-leaf       the leaf locations of spin_leaf, summed per line:
#                       the HOT-LEAF line has the most samples
#   BY-pprof-inline     the hottest location in step has the lines
#                       step:HOT-INLINE then spin_outer:CALL-INLINE
#                       (pprof's inline frames, innermost first)
#   BY-pprof-addr2line  every location of the workload that is a sample's
#                       leaf or a return address and has a line (not a
#                       whole function's): its lines (function:line,
#                       innermost first) are what `addr2line -i -f` says for
#                       its address (a return address: the byte before, the
#                       call), the address taken back to the ELF's
#                       virtual address through the mapping and PT_LOADs
#   BY-pprof-funcs      Functions spin_leaf, spin_outer and step: the
#                       source file, and start_line their declaration's line
#   BY-perf-lines       the samples ending in spin_leaf and spin_outer,
#                       counted per line (the innermost: step's inside
#                       spin_outer), in the pprof export and in `perf script
#                       -F ip,sym,srcline` of the same file: equal
#   BY-go-list          `go tool pprof -list '^spin_leaf$'` prints the
#                       HOT-LEAF line with a sample count; -list '^step$'
#                       the HOT-INLINE line
#   BY-go-lines         `go tool pprof -top -lines` has spin_leaf at
#                       srcpos.c:HOT-LEAF
#   BY-firefox          the function's location is "spin_leaf (FILE:DECL)",
#                       the form from which the profiler fills funcTable's
#                       fileName and lineNumber; the frames of spin_leaf
#                       that samples end in carry frameTable lines, the
#                       HOT-LEAF line the most; spin_outer has frames on
#                       the CALL-INLINE line
#   BY-speedscope       frames spin_leaf and step: file the source, line
#                       the declaration's
# And without debug info (-g0), no positions are made up: nodebug-pprof
# (no Function of the workload has a file or a start line, its locations'
# lines are 0, its mapping claims no file names or lines), nodebug-firefox
# ("spin_leaf (in DSO)", no frame lines), nodebug-speedscope (the file is
# the DSO, no line).
. "$(dirname "$0")/lib.sh"

has_record || { skip export-srcline "this pcl has no record command"; exit 0; }
command -v python3 >/dev/null 2>&1 || { skip export-srcline "python3 is not installed (the checks are in python)"; exit 0; }
command -v addr2line >/dev/null 2>&1 || { skip export-srcline "addr2line (binutils) is not installed"; exit 0; }
here=$(cd "$(dirname "$0")" && pwd)
PROTO_DIR="$here/../proto"
SRC="$(cd "$here/../workloads" && pwd -P)/srcpos.c"
dump="$here/srcpos-dump.py"
have_protoc=1
command -v protoc >/dev/null 2>&1 || have_protoc=0
have_go=1
command -v go >/dev/null 2>&1 || have_go=0

# clang keeps the frame pointer in leaf functions too: spin_leaf's callers,
# and so return addresses, are in the chains (gcc's -g chains skip main).
# DWARF 4: binutils 2.40's addr2line ignores the DW_FORM_rnglistx ranges of
# clang's DWARF 5 inlined subroutines (now_ms inlined into main: it says
# main:23 where libdw, and so pcl, says now_ms:23 then main:48).
exe=$TMP/srcpos
if ! { command -v clang >/dev/null 2>&1 && clang -std=gnu11 -O2 -g -gdwarf-4 -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -o "$exe" "$SRC"; }; then
	exe=$(workload srcpos -O2) || { not_ok export-srcline-workload "cannot build tests/workloads/srcpos.c"; exit 0; }
fi
nodebug=$(workload srcpos -O2 -g0) || { not_ok export-srcline-workload "cannot build srcpos.c -g0"; exit 0; }
line_of() { grep -n -F -- "$1" "$SRC" | head -1 | cut -d: -f1; }
HOT=$(line_of 'HOT-LEAF */')
INL=$(line_of 'HOT-INLINE */')
CALL=$(line_of 'CALL-INLINE */')
D_LEAF=$(line_of 'void spin_leaf(void)')
D_OUTER=$(line_of 'void spin_outer(void)')
D_STEP=$(line_of 'void step(unsigned long i)')

# export BY FORMAT EXT: $TMP/BY.data to $TMP/BY.EXT; false (reported) on failure.
export_to() {
	run_long "exp-$1-$2" 60 "$PCL" report -i "$TMP/$1.data" --format="$2" -o "$TMP/$1.$3"
	if [ "$RC" -ne 0 ] || crashed "$TMP/exp-$1-$2.err" "$RC" || [ ! -s "$TMP/$1.$3" ]; then
		not_ok "$1-$2-export" "pcl report --format=$2: exit $RC (want 0)" "$(show "$TMP/exp-$1-$2.err")"
		return 1
	fi
}
# pprof_dump BY: $TMP/BY.pb.gz decoded and dumped into $TMP/BY.pp.
pprof_dump() {
	if ! gzip -dc "$TMP/$1.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode=perftools.profiles.Profile profile.proto >"$TMP/$1.txt" 2>"$TMP/$1.perr"; then
		not_ok "$1-pprof-decode" "gzip -dc | protoc --decode failed" "$(show "$TMP/$1.perr")"
		return 1
	fi
	python3 "$dump" pprof "$TMP/$1.txt" >"$TMP/$1.pp"
}
# The workload's locations: "ROLE<TAB>ADDR<TAB>FILE<TAB>OFF<TAB>FLAT<TAB>LINES".
locs_of() { awk -F'\t' -v f="$2" '$1 ~ /^loc / && $3 == f { sub(/^loc /, ""); print }' "$1"; }

# to_vaddr EXE < "OFF ROLE ..." lines: each file offset (hex) as the ELF
# virtual address (hex), one less for a return address (ROLE ret: the call).
to_vaddr() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' >"$TMP/segs"
	python3 -c '
import sys
segs = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
for l in sys.stdin:
    w = l.split()
    a = int(w[0], 16)
    for off, va, size in segs:
        if off <= a < off + size:
            a = a - off + va
            break
    if w[1] == "ret":
        a -= 1
    print("%x" % a, *w[1:])
' "$TMP/segs"
}

check_pprof() {
	local by=$1 best chain
	locs_of "$TMP/$by.pp" "$exe" >"$TMP/$by.locs"
	# summed per innermost function and line, over the leaves
	best=$(awk -F'\t' '$1 == "leaf" { split($6, l, ";"); n[l[1]] += $5 }
		END { for (k in n) print n[k], k }' "$TMP/$by.locs" | sort -k1,1nr >"$TMP/$by.byline"
		awk '$2 ~ /^spin_leaf:/ { print $2; exit }' "$TMP/$by.byline")
	if [ "$best" = "spin_leaf:$HOT" ]; then
		ok "$by-pprof-leaf"
	else
		not_ok "$by-pprof-leaf" "want spin_leaf's hottest line $HOT (HOT-LEAF), got '$best'" \
			"$(head -8 "$TMP/$by.byline")"
	fi
	best=$(awk '$2 ~ /^step:/ { print $2; exit }' "$TMP/$by.byline")
	chain=$(awk -F'\t' -v b="$best" '$1 == "leaf" { split($6, l, ";"); if (l[1] == b) { print $6; exit } }' "$TMP/$by.locs")
	if [ "$best" = "step:$INL" ] && [ "$chain" = "step:$INL;spin_outer:$CALL" ]; then
		ok "$by-pprof-inline"
	else
		not_ok "$by-pprof-inline" "want the hottest line of step $INL, in a location with lines step:$INL;spin_outer:$CALL" \
			"got '$best' in '$chain'" "$(head -8 "$TMP/$by.byline")"
	fi

	# every leaf and return address against addr2line, in one run; not the
	# locations that stand for a whole function (one line, 0: the address
	# had no line, e.g. clang's line-0 rows), whose address is its start
	awk -F'\t' '($1 == "leaf" || $1 == "ret") && $6 !~ /^[^;]*:0$/ { print $4, $1, $6 }' "$TMP/$by.locs" |
		to_vaddr "$exe" >"$TMP/$by.want-a2l"
	awk '{ print "0x" $1 }' "$TMP/$by.want-a2l" | addr2line -a -i -f -e "$exe" 2>/dev/null |
		awk '/^0x/ { if (k != "") print k, c; k = $1; sub(/^0x0*/, "", k); if (k == "") k = "0"; c = ""; fn = ""; next }
		     fn == "" { fn = $0; next }
		     { n = split($0, p, ":"); l = p[n]; sub(/ .*/, "", l); if (l == "?") l = 0
		       c = c (c == "" ? "" : ";") fn ":" l; fn = "" }
		     END { if (k != "") print k, c }' >"$TMP/$by.a2l"
	local n bad
	n=$(wc -l <"$TMP/$by.want-a2l")
	bad=$(awk 'NR == FNR { a[$1] = $2; next } { if (a[$1] != $3) print "at " $1 " (location " $2 "): export " $3 ", addr2line " a[$1] }' \
		"$TMP/$by.a2l" "$TMP/$by.want-a2l")
	if [ "$n" -ge 4 ] && [ -z "$bad" ] && { [ "$exe" != "$TMP/srcpos" ] || grep -q ' ret ' "$TMP/$by.want-a2l"; }; then
		ok "$by-pprof-addr2line"
	else
		not_ok "$by-pprof-addr2line" "$n locations compared (want 4 or more, return addresses among them), these differ:" \
			"$(head -10 <<<"$bad")" "compared:" "$(head -10 "$TMP/$by.want-a2l")"
	fi

	local f want got fails=""
	for f in "spin_leaf $D_LEAF" "spin_outer $D_OUTER" "step $D_STEP"; do
		want="func ${f% *}	$SRC	${f#* }"
		got=$(grep -F "func ${f% *}	" "$TMP/$by.pp" | head -1)
		# the file as the debug info names it: the path the workload was built from
		[ "$(realpath -m "$(cut -f2 <<<"$got")" 2>/dev/null)" = "$(realpath -m "$SRC")" ] &&
			[ "$(cut -f3 <<<"$got")" = "${f#* }" ] || fails+="want '$want', got '$got'"$'\n'
	done
	if [ -z "$fails" ]; then ok "$by-pprof-funcs"; else not_ok "$by-pprof-funcs" "$fails"; fi
}

# check_perf_lines BY: per line, the samples that end in spin_leaf and
# spin_outer (its own lines and step's inlined into it) as pcl's pprof
# export counts them (the leaf locations' innermost lines) and as
# `perf script -F ip,sym,srcline` prints them on the same file: equal.
check_perf_lines() {
	local by=$1
	if ! have_perf; then
		skip "$by-perf-lines" "perf is not installed"
		return
	fi
	run_long "ps-$by" 120 perf script -i "$TMP/$by.data" -F ip,sym,srcline -G
	awk '$2 == "spin_leaf" || $2 == "spin_outer" { s = $2; next }
	     s != "" { n = split($1, p, ":"); c[s " " p[n]]++; s = "" }
	     END { for (k in c) print k, c[k] }' "$TMP/ps-$by.out" | sort >"$TMP/$by.perf-lines"
	awk -F'\t' '$1 == "leaf" { n = split($6, l, ";"); split(l[1], a, ":"); split(l[n], o, ":")
		if (o[1] == "spin_leaf" || o[1] == "spin_outer") c[o[1] " " a[2]] += $5 }
		END { for (k in c) print k, c[k] }' "$TMP/$by.locs" | sort >"$TMP/$by.pcl-lines"
	if [ -s "$TMP/$by.perf-lines" ] && cmp -s "$TMP/$by.perf-lines" "$TMP/$by.pcl-lines"; then
		ok "$by-perf-lines"
	else
		not_ok "$by-perf-lines" "samples per 'FUNCTION LINE': perf script (left) and pcl's pprof (right) differ" \
			"$(diff "$TMP/$by.perf-lines" "$TMP/$by.pcl-lines" | head -12)" "$(show "$TMP/ps-$by.err" 5)"
	fi
}

# go_row OUT LINE: the flat column of source line LINE in a pprof -list output.
go_row() { awk -v l="$2" '{ for (i = 1; i <= NF; i++) if ($i == l ":") { print $1; exit } }' "$1"; }

check_go() {
	local by=$1 flat flat2
	if [ $have_go = 0 ]; then
		skip "$by-go-list" "go is not installed (golang-go, scripts/deps.sh)"
		skip "$by-go-lines" "go is not installed"
		return
	fi
	run_long "go-$by" 120 go tool pprof -list '^spin_leaf$' "$TMP/$by.pb.gz"
	flat=$(go_row "$TMP/go-$by.out" "$HOT")
	run_long "go2-$by" 120 go tool pprof -list '^step$' "$TMP/$by.pb.gz"
	flat2=$(go_row "$TMP/go2-$by.out" "$INL")
	if [ -n "$flat" ] && [ "$flat" != . ] && [ -n "$flat2" ] && [ "$flat2" != . ] &&
		grep -q 'HOT-LEAF' "$TMP/go-$by.out" && grep -q 'HOT-INLINE' "$TMP/go2-$by.out"; then
		ok "$by-go-list"
	else
		not_ok "$by-go-list" "want line $HOT (HOT-LEAF) of spin_leaf and $INL (HOT-INLINE) of step with a flat count," \
			"got '$flat' and '$flat2'" "$(show "$TMP/go-$by.out" 12)" "$(show "$TMP/go-$by.err" 5)" \
			"$(show "$TMP/go2-$by.out" 8)"
	fi
	run_long "go3-$by" 120 go tool pprof -top -lines "$TMP/$by.pb.gz"
	if grep -qE " spin_leaf [^ ]*srcpos\.c:$HOT\$" "$TMP/go3-$by.out"; then
		ok "$by-go-lines"
	else
		not_ok "$by-go-lines" "want a row 'spin_leaf .../srcpos.c:$HOT'" "$(show "$TMP/go3-$by.out" 20)"
	fi
}

check_firefox() {
	local by=$1 best calls
	python3 "$dump" firefox "$TMP/$by.ff.json" >"$TMP/$by.ff" 2>"$TMP/$by.fferr"
	best=$(awk -F'\t' '$1 == "frame spin_leaf" { print $3, $2 }' "$TMP/$by.ff" | sort -k1,1nr | head -1)
	calls=$(awk -F'\t' -v l="$CALL" '$1 == "frame spin_outer" && $2 == l { n += $3 } END { print n + 0 }' "$TMP/$by.ff")
	if grep -qxF "location spin_leaf ($SRC:$D_LEAF)" "$TMP/$by.ff" && [ "${best#* }" = "$HOT" ] &&
		[ "$calls" -gt 0 ]; then
		ok "$by-firefox"
	else
		not_ok "$by-firefox" "want the location 'spin_leaf ($SRC:$D_LEAF)', spin_leaf's frame line $HOT the hottest" \
			"(got: samples line '$best'), spin_outer frames on line $CALL (got $calls samples)" \
			"$(grep -E 'spin|step' "$TMP/$by.ff" | head -10)" "$(show "$TMP/$by.fferr" 5)"
	fi
}

check_speedscope() {
	local by=$1
	python3 "$dump" speedscope "$TMP/$by.ss.json" >"$TMP/$by.ss" 2>"$TMP/$by.sserr"
	if grep -qxF "frame spin_leaf	$SRC	$D_LEAF" "$TMP/$by.ss" &&
		grep -qxF "frame step	$SRC	$D_STEP" "$TMP/$by.ss"; then
		ok "$by-speedscope"
	else
		not_ok "$by-speedscope" "want frames 'spin_leaf $SRC $D_LEAF' and 'step $SRC $D_STEP'" \
			"$(grep -E 'spin|step' "$TMP/$by.ss")" "$(show "$TMP/$by.sserr" 5)"
	fi
}

for by in pcl perf; do
	if [ $by = perf ] && ! have_perf; then
		skip perf "perf is not installed"
		continue
	fi
	record_to export-srcline $by $by -g -e cpu-clock -F 4000 -o "$TMP/$by.data" -- "$exe" 500 || continue
	if [ $have_protoc = 0 ]; then
		skip "$by-pprof" "protoc is not installed"
	elif export_to $by pprof pb.gz && pprof_dump $by; then
		check_pprof $by
		check_perf_lines $by
		check_go $by
	fi
	export_to $by firefox ff.json && check_firefox $by
	export_to $by speedscope ss.json && check_speedscope $by
done

# Without debug info: nothing made up.
if record_to export-srcline pcl nodebug -g -e cpu-clock -F 2000 -o "$TMP/nodebug.data" -- "$nodebug" 300; then
	if [ $have_protoc = 0 ]; then
		skip nodebug-pprof "protoc is not installed"
	elif export_to nodebug pprof pb.gz && pprof_dump nodebug; then
		locs_of "$TMP/nodebug.pp" "$nodebug" >"$TMP/nodebug.locs"
		made=$(awk -F'\t' '$6 !~ /^[^;:]*:0$/' "$TMP/nodebug.locs"
			grep -E '^func (spin_leaf|spin_outer|main)	' "$TMP/nodebug.pp" | awk -F'\t' '$2 != "" || $3 != 0'
			grep -F "flags $nodebug	" "$TMP/nodebug.pp" | grep has_)
		if grep -q "	spin_leaf:0\$" "$TMP/nodebug.locs" && [ -z "$made" ]; then
			ok nodebug-pprof
		else
			not_ok nodebug-pprof "want spin_leaf's locations with line 0 and no file, no line flags on the mapping;" \
				"made up:" "$made" "$(head -5 "$TMP/nodebug.locs")"
		fi
	fi
	if export_to nodebug firefox ff.json; then
		python3 "$dump" firefox "$TMP/nodebug.ff.json" >"$TMP/nodebug.ff"
		if grep -qxF "location spin_leaf (in $(basename "$nodebug"))" "$TMP/nodebug.ff" &&
			! awk -F'\t' '$1 == "frame spin_leaf" && $2 != "None"' "$TMP/nodebug.ff" | grep -q .; then
			ok nodebug-firefox
		else
			not_ok nodebug-firefox "want 'spin_leaf (in $(basename "$nodebug"))' and no frame line" \
				"$(grep spin "$TMP/nodebug.ff")"
		fi
	fi
	if export_to nodebug speedscope ss.json; then
		python3 "$dump" speedscope "$TMP/nodebug.ss.json" >"$TMP/nodebug.ss"
		if grep -qxF "frame spin_leaf	$nodebug	" "$TMP/nodebug.ss"; then
			ok nodebug-speedscope
		else
			not_ok nodebug-speedscope "want 'frame spin_leaf $nodebug' with no line" "$(grep spin "$TMP/nodebug.ss")"
		fi
	fi
fi
