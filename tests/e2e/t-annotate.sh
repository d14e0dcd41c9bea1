#!/usr/bin/env bash
# pcl annotate against perf annotate --stdio on the same files (recorded by
# perf and by pcl): the hottest function instruction by instruction (same
# addresses, same text, percentages within 0.5 points), the same headings,
# the source lines perf shows, jumps naming targets in the listing; the
# other percent types and -n; and clear errors for bad input.
. "$(dirname "$0")/lib.sh"

have_perf || { skip annotate "perf is not installed"; exit 0; }
hot=$(workload hot) || { skip annotate "cannot build the hot workload"; exit 0; }
nofp="$WORKLOADS/hot-nofp"
[ -x "$nofp" ] || nofp=$(workload hot -O2 -g -fomit-frame-pointer -fno-inline)
# perf's build-id cache may hold other builds of the same paths: use an empty one.
export PERF_BUILDID_DIR="$TMP/buildid-cache"
mkdir -p "$PERF_BUILDID_DIR"

# insns FILE: "ADDR<TAB>PERCENT<TAB>TEXT" per instruction line of a listing;
# objdump's symbol versions (name@@VER) are not in capstone's names, and
# dropped.
insns() {
	sed -nE 's/^ +([0-9.]+) : +([0-9a-f]+): +(.*)$/\2\t\1\t\3/p' "$1" | sed -E 's/@@[A-Z0-9_.]+//g'
}
# sources FILE: the source text lines of a listing, without their numbers.
sources() {
	sed -nE 's/^ +: [0-9]+ +(.*)$/\1/p' "$1" | grep -vE '^(Disassembly of section|[0-9a-f]{16} <)'
}
# The first disagreement of "pcl-line<TAB>perf-line" pairs of insns output.
CMP_AWK='
NF != 6 { print "line " NR ": one listing is shorter"; exit }
$1 != $4 { print "line " NR ": address " $1 " against perf " $4; exit }
$3 != $6 { print "line " NR " at " $1 ": [" $3 "] against perf [" $6 "]"; exit }
{ d = $2 - $5; if (d < 0) d = -d; if (d > 0.5) { print "line " NR " at " $1 ": " $2 "% against perf " $5 "%"; exit } }'
# compare_insns NAME PCL_OUT PERF_OUT: ok if the instructions agree.
compare_insns() {
	local name=$1
	insns "$2" >"$TMP/$name.pi"
	insns "$3" >"$TMP/$name.qi"
	if [ ! -s "$TMP/$name.qi" ]; then
		not_ok "$name" "oracle: perf annotate printed no instructions" "$(show "$3")"
		return
	fi
	local bad
	bad=$(paste "$TMP/$name.pi" "$TMP/$name.qi" | awk -F'\t' "$CMP_AWK")
	if [ -z "$bad" ] && [ "$(wc -l <"$TMP/$name.pi")" -eq "$(wc -l <"$TMP/$name.qi")" ]; then
		ok "$name"
	else
		[ -n "$bad" ] || bad="$(wc -l <"$TMP/$name.pi") instructions, perf has $(wc -l <"$TMP/$name.qi")"
		not_ok "$name" "$bad" \
			"pcl:" "$(show "$2" 40)" "perf:" "$(show "$3" 40)"
	fi
}

check_file() { # BY FILE BIN
	local by=$1 f=$2 bin=$3 sym
	perf report --stdio --no-children -i "$f" --sort sym 2>/dev/null >"$TMP/$by.rep"
	sym=$(sed -nE 's/^ +[0-9.]+% +\[\.\] ([A-Za-z_0-9.]+).*/\1/p' "$TMP/$by.rep" | head -1)
	if [ -z "$sym" ]; then
		not_ok "annotate-$by" "oracle: no user function in perf report" "$(show "$TMP/$by.rep")"
		return
	fi
	perf annotate --stdio -i "$f" "$sym" >"$TMP/$by.perf" 2>"$TMP/$by.perf.err"
	run "$by.pcl" "$PCL" annotate --stdio -i "$f" "$sym"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$by.pcl.err" "$RC"; then
		not_ok "annotate-$by" "pcl annotate $sym: exit $RC" "$(show "$TMP/$by.pcl.err")"
		return
	fi
	compare_insns "annotate-$by-$sym" "$TMP/$by.pcl.out" "$TMP/$by.perf"
	# the heading and the lines before the first instruction but source ones
	diff_or_ok "annotate-$by-heading" <(grep -vE '^ +: [0-9]+ +[^D0-9]' "$TMP/$by.pcl.out" | sed -n 1,8p) \
		<(grep -vE '^ +: [0-9]+ +[^D0-9]' "$TMP/$by.perf" | sed -n 1,8p) pcl perf
	diff_or_ok "annotate-$by-source" <(sources "$TMP/$by.pcl.out") <(sources "$TMP/$by.perf") pcl perf
	# source numbers are the lines' own: the text of line N of the file
	local src bad=""
	src=$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c
	while read -r n text; do
		[ "$(sed -n "${n}p" "$src" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')" = "$text" ] || bad="$bad $n"
	done < <(sed -nE 's/^ +: ([0-9]+) +(.*)$/\1 \2/p' "$TMP/$by.pcl.out" | grep -vE '^[0-9]+ (Disassembly|[0-9a-f]{16} <|[a-z_]+\(\):$)')
	if [ -z "$bad" ]; then
		ok "annotate-$by-line-numbers"
	else
		not_ok "annotate-$by-line-numbers" "lines$bad do not show hot.c's text at that number" "$(show "$TMP/$by.pcl.out" 20)"
	fi
	# every jump inside the function names a target that is one of its instructions
	local jumps targets
	jumps=$(grep -cE ": +j[a-z]+ +[0-9a-f]+ <$sym\+0x[0-9a-f]+>" "$TMP/$by.pcl.out")
	targets=$(sed -nE "s/.*: +j[a-z]+ +([0-9a-f]+) <$sym\+0x[0-9a-f]+>.*/\1/p" "$TMP/$by.pcl.out" |
		while read -r t; do grep -qE "^ +[0-9.]+ : +$t: " "$TMP/$by.pcl.out" && echo "$t"; done | wc -l)
	if [ "$jumps" -gt 0 ] && [ "$jumps" -eq "$targets" ]; then
		ok "annotate-$by-jumps"
	else
		not_ok "annotate-$by-jumps" "$jumps jumps in $sym, $targets with a target among its instructions" \
			"$(show "$TMP/$by.pcl.out" 40)"
	fi
	# every function, hottest first, with the same headings as perf's (user code only:
	# perf cannot annotate the kernel without a vmlinux either); functions of a
	# few samples tie, and ties are ordered differently
	local many='Source code & Disassembly of .*\([0-9]{2,} samples'
	perf annotate --stdio -i "$f" 2>/dev/null | grep -E "$many" >"$TMP/$by.all.perf"
	"$PCL" annotate -i "$f" 2>"$TMP/$by.all.err" | grep -E "$many" >"$TMP/$by.all.pcl"
	diff_or_ok "annotate-$by-all" "$TMP/$by.all.pcl" "$TMP/$by.all.perf" pcl perf
	perf annotate --stdio --percent-limit 15 -i "$f" 2>/dev/null | grep 'Source code' >"$TMP/$by.lim.perf"
	"$PCL" annotate --percent-limit 15 -i "$f" 2>/dev/null | grep 'Source code' >"$TMP/$by.lim.pcl"
	diff_or_ok "annotate-$by-percent-limit" "$TMP/$by.lim.pcl" "$TMP/$by.lim.perf" pcl perf
	local pt
	for pt in global-period local-hits; do
		perf annotate --stdio --percent-type $pt -i "$f" "$sym" >"$TMP/$by.$pt.perf" 2>/dev/null
		"$PCL" annotate --percent-type $pt -i "$f" "$sym" >"$TMP/$by.$pt.pcl" 2>&1
		compare_insns "annotate-$by-$pt" "$TMP/$by.$pt.pcl" "$TMP/$by.$pt.perf"
	done
	# -l: the summary of source lines and the // FILE:LINE marks (source lines
	# aside: their numbers differ on purpose)
	perf annotate --stdio -l -i "$f" "$sym" 2>/dev/null | grep -vE '^ +: [0-9]' >"$TMP/$by.l.perf"
	"$PCL" annotate -l -i "$f" "$sym" 2>&1 | grep -vE '^ +: [0-9]' >"$TMP/$by.l.pcl"
	if grep -q '^Sorted summary' "$TMP/$by.l.perf" && grep -q ' // hot.c:' "$TMP/$by.l.perf"; then
		diff_or_ok "annotate-$by-print-line" "$TMP/$by.l.pcl" "$TMP/$by.l.perf" pcl perf
	else
		not_ok "annotate-$by-print-line" "oracle: perf annotate -l printed no summary or no // line" "$(show "$TMP/$by.l.perf")"
	fi
	perf annotate --stdio -n --no-source -i "$f" "$sym" >"$TMP/$by.n.perf" 2>/dev/null
	"$PCL" annotate -n --no-source -i "$f" "$sym" >"$TMP/$by.n.pcl" 2>&1
	diff_or_ok "annotate-$by-nr-samples-no-source" "$TMP/$by.n.pcl" "$TMP/$by.n.perf" pcl perf
}

if record_to annotate perf perf -e cpu-clock -o "$TMP/perf.data" -- "$hot" 400; then
	check_file perf "$TMP/perf.data" "$hot"
fi
if record_to annotate pcl pcl -e cpu-clock -o "$TMP/pcl.data" -- "$hot" 400; then
	check_file pcl "$TMP/pcl.data" "$hot"
fi
# -O2 code without frame pointers: other instructions, the same agreement
if record_to annotate perf nofp -e cpu-clock -o "$TMP/nofp.data" -- "$nofp" 400; then
	perf annotate --stdio -i "$TMP/nofp.data" hot_leaf >"$TMP/nofp.perf" 2>/dev/null
	"$PCL" annotate -i "$TMP/nofp.data" hot_leaf >"$TMP/nofp.pcl" 2>&1
	compare_insns annotate-nofp-hot_leaf "$TMP/nofp.pcl" "$TMP/nofp.perf"
fi

# A --call-graph dwarf file whose stacks the copy cannot hold: annotate uses
# each sample's own address only, so it says nothing about cut call chains
# and prints what it prints for the same samples without chains.
if record_to annotate pcl dwarf -e cpu-clock --call-graph dwarf,64 -o "$TMP/dwarf.data" -- "$nofp" 400; then
	"$PCL" annotate -i "$TMP/dwarf.data" hot_leaf >"$TMP/dwarf.pcl" 2>"$TMP/dwarf.err"
	if grep -q 'DWARF unwinding' "$TMP/dwarf.err"; then
		not_ok annotate-dwarf-no-unwinding "annotate warned about unwinding" "$(show "$TMP/dwarf.err")"
	elif ! grep -qE '^ +[0-9.]+ +: +[0-9a-f]+:' "$TMP/dwarf.pcl"; then
		not_ok annotate-dwarf-no-unwinding "no instructions annotated" "$(show "$TMP/dwarf.pcl")"
	elif ! "$PCL" report -i "$TMP/dwarf.data" --stdio 2>&1 | grep -q 'DWARF unwinding.*stopped early'; then
		skip annotate-dwarf-no-unwinding "report finds no cut chain in this file: nothing to check"
	else
		ok annotate-dwarf-no-unwinding
	fi
fi

# C++: objdump -C's names with parameters, in the heading lines and the branches
cxx=$(command -v c++ || command -v g++ || command -v clang++)
if [ -n "$cxx" ]; then
	cat >"$TMP/box.cc" <<'CC'
namespace ns {
template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T spin(int n)
	{
		T s = 0;
		for (int i = 0; i < n; i++)
			s += (T)i ^ (s >> 3);
		return s;
	}
};
}
int main()
{
	ns::Box<long> b{ 1 };
	volatile long r = 0;
	for (int k = 0; k < 1500; k++)
		r += b.spin(100000);
	return (int)r & 1;
}
CC
	if "$cxx" -O1 -g -o "$TMP/box" "$TMP/box.cc" 2>"$TMP/cxx.err" &&
		record_to annotate perf cxx -e cpu-clock -o "$TMP/cxx.data" -- "$TMP/box"; then
		perf annotate --stdio -i "$TMP/cxx.data" 'ns::Box<long>::spin' >"$TMP/cxx.perf" 2>/dev/null
		"$PCL" annotate -i "$TMP/cxx.data" 'ns::Box<long>::spin' >"$TMP/cxx.pcl" 2>&1
		compare_insns annotate-cxx-insns "$TMP/cxx.pcl" "$TMP/cxx.perf"
		local_re='Source code|Disassembly of|spin\(int\)>:$|spin\(int\):$|spin\(int\)\+0x'
		grep -E "$local_re" "$TMP/cxx.pcl" >"$TMP/cxx.h.pcl"
		grep -E "$local_re" "$TMP/cxx.perf" >"$TMP/cxx.h.perf"
		if [ "$(wc -l <"$TMP/cxx.h.perf")" -ge 5 ]; then
			diff_or_ok annotate-cxx-names "$TMP/cxx.h.pcl" "$TMP/cxx.h.perf" pcl perf
		else
			not_ok annotate-cxx-names "oracle: perf's listing lacks the names with (int)" "$(show "$TMP/cxx.perf")"
		fi
	elif [ -s "$TMP/cxx.err" ]; then
		not_ok annotate-cxx "$cxx cannot build the C++ workload" "$(show "$TMP/cxx.err")"
	fi
else
	skip annotate-cxx "no C++ compiler"
fi

# Bad input: one line on stderr, exit 1 (2 for a bad command line).
one_line_error() { # NAME STATUS WANT_RE CMD...
	local name=$1 status=$2 want=$3
	shift 3
	run "$name" "$@"
	if [ "$RC" -eq "$status" ] && [ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && grep -qE "$want" "$TMP/$name.err" &&
		[ ! -s "$TMP/$name.out" ]; then
		ok "$name"
	else
		not_ok "$name" "want exit $status and one line matching '$want' on stderr, nothing on stdout" \
			"exit $RC" "$(show "$TMP/$name.err")" "$(show "$TMP/$name.out")"
	fi
}
if [ -s "$TMP/pcl.data" ]; then
	one_line_error annotate-unknown-symbol 1 "^pcl: .*'no_such_function'" \
		"$PCL" annotate -i "$TMP/pcl.data" no_such_function
	one_line_error annotate-bad-percent-type 2 "^pcl: .*'sideways'" \
		"$PCL" annotate -i "$TMP/pcl.data" --percent-type sideways
fi
# a period of a minute: no sample in a short run
if record_to annotate perf empty -e cpu-clock -c 60000000000 -o "$TMP/empty.data" -- true; then
	one_line_error annotate-no-samples 1 "^pcl: no samples" "$PCL" annotate -i "$TMP/empty.data"
fi
one_line_error annotate-no-file 1 "^pcl: .*nonexistent" "$PCL" annotate -i "$TMP/nonexistent.data"

# The HTML page's listing of the hot function (pcl report --format=html):
# the instructions and sample counts pcl annotate -n prints for it.
if [ -s "$TMP/pcl.data" ] && command -v python3 >/dev/null 2>&1; then
	"$PCL" report -i "$TMP/pcl.data" --format=html -o "$TMP/page.html" 2>"$TMP/page.err"
	"$PCL" annotate -n -i "$TMP/pcl.data" hot_leaf 2>/dev/null |
		sed -nE 's/^ +([0-9]+) : +([0-9a-f]+): .*/\2 \1/p' >"$TMP/page.want"
	python3 - "$TMP/page.html" >"$TMP/page.got" 2>&1 <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'<script type="application/json" id="pcl-data">(.*?)</script>', html, re.S).group(1))
for a in d['ann']:
    if d['fname'][a['f']] == 'hot_leaf' and 'asm' in a:
        for i in a['asm']:
            print(i[0], i[2])
PY
	if [ -s "$TMP/page.want" ]; then
		diff_or_ok annotate-html-listing "$TMP/page.got" "$TMP/page.want" page "pcl annotate -n"
	else
		not_ok annotate-html-listing "pcl annotate -n printed no instructions for hot_leaf"
	fi
else
	skip annotate-html-listing "no pcl recording, or no python3 to read the page's JSON"
fi
