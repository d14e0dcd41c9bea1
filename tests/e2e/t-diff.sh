#!/usr/bin/env bash
# pcl diff OLD NEW: the shift workload moves its time from func_a ('shift a':
# about 80% in func_a) to func_b ('shift b': about 80% in func_b). pcl diff
# shows func_a with a baseline near 80% and a large negative delta, func_b
# with a large positive one; against perf diff on the same two files
# (recorded by pcl, and by perf) it has the same rows, in the same order,
# with the same baseline and delta (within 0.01 points; -c delta and -c
# ratio too). PLT slots are left out of the comparison: perf names them
# NAME@plt or _init from one run to the next (see report-lib.sh). Also:
# a stripped binary's addresses (one row per DSO, as perf diff), perf's
# default files, --format=flamegraph (func_b's frame red, func_a's
# blue), and a missing file (one line naming it, non-zero exit).
. "$(dirname "$0")/lib.sh"

if ! has_cmd diff; then
	skip diff "this pcl has no diff command"
	exit 0
fi

# rows.pl FILE: the rows of a 'diff' output in order, "DSO | SYMBOL\tBASELINE\tVALUE"
#   (the keys' columns joined, numbers without '%', blank as '-'); columns
#   cut where the '# ....' line under the column names says. PLT slots
#   (NAME@plt, _init) are left out.
cat >"$TMP/rows.pl" <<'PL'
use strict;
use warnings;
my (@spans, @names, $prev);
$prev = '';
while (my $l = <>) {
	chomp $l;
	if ($l =~ /^# \.+(?:  \.+)*\s*$/) {
		@spans = ();
		while ($l =~ /(\.+)/g) { push @spans, [$-[1], $+[1]]; }
		$spans[0][0] = 0;
		@names = ();
		for my $i (0 .. $#spans) {
			my $e = $i == $#spans ? length($prev) : $spans[$i][1];
			my $n = substr($prev, $spans[$i][0], $e - $spans[$i][0]);
			$n =~ s/^[#\s]+|\s+$//g;
			push @names, $n;
		}
		next;
	}
	if ($l =~ /^#/) { $prev = $l; next; }
	next if !@spans || $l =~ /^\s*$/;
	my (@num, @key);
	for my $i (0 .. $#spans) {
		my $s = $spans[$i][0];
		my $e = $i == $#spans ? length($l) : $spans[$i][1];
		my $v = $s < length($l) ? substr($l, $s, $e - $s) : '';
		$v =~ s/^\s+|\s+$//g;
		if ($names[$i] =~ /^(Baseline|Delta|Delta Abs|Ratio|Weighted diff)$/) {
			$v =~ s/%$//;
			push @num, $v eq '' ? '-' : $v;
		} else {
			push @key, $v;
		}
	}
	next if $key[-1] =~ /(?:^|\s)(?:_init|\S+\@plt)$/;
	print join(' | ', @key), "\t", join("\t", @num), "\n";
}
PL
# cmp.pl PERF PCL TOL: exit 0 if the two row lists have the same keys in the
# same order with numbers within TOL (other cells, blank or N/A, equal);
# else print what differs, exit 1; exit 2 if PERF has no row.
cat >"$TMP/cmp.pl" <<'PL'
use strict;
use warnings;
my ($pf, $cf, $tol) = @ARGV;
sub rd { open(my $f, '<', $_[0]) or die "$_[0]: $!\n"; my @r = map { chomp; [split /\t/] } <$f>; return @r; }
my @p = rd($pf);
my @c = rd($cf);
exit 2 unless @p;
my (%p, %c, @bad);
$p{$_->[0]} = $_ for @p;
$c{$_->[0]} = $_ for @c;
for my $k (sort keys %{{ %p, %c }}) {
	my ($x, $y) = ($p{$k}, $c{$k});
	if (!$x || !$y) { push @bad, "$k: " . ($x ? "only in perf's" : "only in pcl's"); next; }
	for my $j (1 .. $#$x) {
		my ($a, $b) = ($x->[$j], $y->[$j] // '');
		my $num = qr/^[-+]?\d+(?:\.\d+)?$/;
		my $same = $a eq $b || ($a =~ $num && $b =~ $num && abs($a - $b) <= $tol + 1e-9);
		push @bad, "$k: perf " . join(' ', @$x[1 .. $#$x]) . ", pcl " . join(' ', @$y[1 .. $#$y]) if !$same;
		last if !$same;
	}
}
if (!@bad && join("\n", map { $_->[0] } @p) ne join("\n", map { $_->[0] } @c)) {
	push @bad, "the same rows in another order";
}
exit 0 unless @bad;
print "  $_\n" for @bad[0 .. ($#bad < 14 ? $#bad : 14)];
exit 1;
PL

# compare NAME OLD NEW TOL ARGS...: pcl diff ARGS OLD NEW against perf diff.
compare() {
	local name=$1 old=$2 new=$3 tol=$4 rc
	shift 4
	run_long "$name.perf" 60 perf diff "$@" "$old" "$new"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "oracle: perf diff $*: exit $RC" "$(show "$TMP/$name.perf.err")"
		return
	fi
	run_long "$name.pcl" 60 "$PCL" diff "$@" "$old" "$new"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$name.pcl.err" "$RC"; then
		not_ok "$name" "pcl diff $*: exit $RC (want 0)" "$(show "$TMP/$name.pcl.err")"
		return
	fi
	perl "$TMP/rows.pl" "$TMP/$name.perf.out" >"$TMP/$name.perf.rows"
	perl "$TMP/rows.pl" "$TMP/$name.pcl.out" >"$TMP/$name.pcl.rows"
	perl "$TMP/cmp.pl" "$TMP/$name.perf.rows" "$TMP/$name.pcl.rows" "$tol" >"$TMP/$name.cmp" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name"
	elif [ $rc -eq 2 ]; then
		not_ok "$name" "oracle: perf diff $* shows no row:" "$(show "$TMP/$name.perf.out")"
	else
		not_ok "$name" "pcl diff $* differs from perf diff (within $tol):" "$(cat "$TMP/$name.cmp")" \
			"$(diff -u --label perf --label pcl "$TMP/$name.perf.out" "$TMP/$name.pcl.out" | head -30)"
	fi
}

# row FILE SYMBOL: "BASELINE DELTA" of SYMBOL's row in pcl diff's rows ('-' when blank).
row() { awk -F'\t' -v s="$2" '$1 ~ ("\\] " s "$") { print $2, $3; exit }' "$1"; }

shift_wl=$(workload shift)
for by in pcl perf; do
	record_to diff "$by" "a-$by" -F 2000 -o "$TMP/a-$by.data" -- "$shift_wl" a 500 &&
		record_to diff "$by" "b-$by" -F 2000 -o "$TMP/b-$by.data" -- "$shift_wl" b 500 || continue
	OLD=$TMP/a-$by.data NEW=$TMP/b-$by.data
	run_long "$by.diff" 60 "$PCL" diff "$OLD" "$NEW"
	perl "$TMP/rows.pl" "$TMP/$by.diff.out" >"$TMP/$by.diff.rows"
	read -r ab ad <<<"$(row "$TMP/$by.diff.rows" func_a)"
	read -r bb bd <<<"$(row "$TMP/$by.diff.rows" func_b)"
	if [ "$RC" -eq 0 ] && awk -v ab="${ab:--}" -v ad="${ad:--}" -v bd="${bd:--}" 'BEGIN {
		exit !(ab + 0 >= 60 && ab + 0 <= 95 && ad ~ /^-/ && ad + 0 <= -30 && bd ~ /^\+/ && bd + 0 >= 30) }'; then
		ok "diff-shift-$by"
	else
		not_ok "diff-shift-$by" "pcl diff 'shift a' 'shift b': exit $RC (want 0); want func_a's baseline" \
			"60..95% and delta <= -30, func_b's delta >= +30; got func_a '${ab:-} ${ad:-}'," \
			"func_b '${bb:-} ${bd:-}'" "$(show "$TMP/$by.diff.out")" "$(show "$TMP/$by.diff.err")"
	fi
	if have_perf; then
		compare "diff-vs-perf-$by" "$OLD" "$NEW" 0.01
		compare "diff-vs-perf-$by-delta" "$OLD" "$NEW" 0.01 -c delta
		compare "diff-vs-perf-$by-ratio" "$OLD" "$NEW" 0.0001 -c ratio
	else
		skip "diff-vs-perf-$by" "perf is not installed"
	fi
done

# flame_diff ID OLD NEW: the differential flame graph, NEW's frames coloured by
# their change from OLD. The files may come from different recorders: their
# events pair as in the text diff (perf's "cpu-clock:ppp" is pcl's "cpu-clock").
flame_diff() {
	local id=$1 colours
	shift
	run_long fg-$id 60 "$PCL" diff --format=flamegraph -o "$TMP/$id.svg" "$1" "$2"
	if [ "$RC" -ne 0 ] || [ ! -s "$TMP/$id.svg" ]; then
		not_ok $id "pcl diff --format=flamegraph -o: exit $RC (want 0), file $(wc -c <"$TMP/$id.svg" 2>/dev/null || echo 0) bytes" \
			"$(show "$TMP/fg-$id.err")"
	elif command -v xmllint >/dev/null 2>&1 && ! xmllint --noout "$TMP/$id.svg" 2>"$TMP/xml-$id.err"; then
		not_ok $id "the SVG does not parse (xmllint):" "$(show "$TMP/xml-$id.err")"
	elif ! command -v python3 >/dev/null 2>&1; then
		skip $id "python3 is not installed (it reads the frames' colours)"
	else
		colours=$(python3 - "$TMP/$id.svg" <<'PY' 2>&1
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def tag(e):
    return e.tag.rsplit('}', 1)[-1]
def hue(name):
    for g in root.iter():
        if tag(g) == 'g' and g.get('class') == 'frame' and g.get('data-name') == name:
            r = next((c for c in g if tag(c) == 'rect'), None)
            m = re.match(r'rgb\((\d+),\s*(\d+),\s*(\d+)\)', r.get('fill', '')) if r is not None else None
            if not m:
                h = re.match(r'#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$', r.get('fill', '') if r is not None else '')
                if not h:
                    return 'fill?'
                c = [int(x, 16) for x in h.groups()]
            else:
                c = [int(x) for x in m.groups()]
            return 'red' if c[0] > c[2] else 'blue' if c[2] > c[0] else 'grey'
    return 'none'
print(hue('func_a'), hue('func_b'))
PY
		)
		if [ "$colours" = "blue red" ]; then ok $id; else
			not_ok $id "want func_a's frame blue (shrank) and func_b's red (grew), got: $colours" \
				"$(grep -o '<g class="frame" data-name="func_[ab]"[^>]*>.\{0,300\}' "$TMP/$id.svg" | head -4)"
		fi
	fi
}
# A stripped binary: perf diff matches symbols by name and makes every
# address with no symbol one row per DSO (shown as its lowest address); two
# runs of a stripped hot, by pcl and by perf, against perf diff.
if ! command -v strip >/dev/null 2>&1; then
	skip diff-stripped "strip (binutils) is not installed"
elif ! have_perf; then
	skip diff-stripped "perf is not installed"
else
	# without its build id too: perf would find the symbols of an unstripped
	# hot that any earlier perf record cached under it in ~/.debug
	cp "$(workload hot)" "$TMP/hot-stripped" &&
		strip --remove-section=.note.gnu.build-id "$TMP/hot-stripped"
	for by in pcl perf; do
		record_to diff "$by" "sa-$by" -F 2000 -o "$TMP/sa-$by.data" -- "$TMP/hot-stripped" 300 &&
			record_to diff "$by" "sb-$by" -F 2000 -o "$TMP/sb-$by.data" -- "$TMP/hot-stripped" 300 || continue
		compare "diff-stripped-$by" "$TMP/sa-$by.data" "$TMP/sb-$by.data" 0.01
		compare "diff-stripped-$by-sort-sym" "$TMP/sa-$by.data" "$TMP/sb-$by.data" 0.01 --sort sym
		compare "diff-stripped-$by-ratio" "$TMP/sa-$by.data" "$TMP/sb-$by.data" 0.0001 -c ratio
	done
fi

OLD=$TMP/a-pcl.data NEW=$TMP/b-pcl.data
if [ -s "$OLD" ] && [ -s "$NEW" ]; then
	# no file named: OLD perf.data.old, NEW perf.data, as perf
	mkdir -p "$TMP/def"
	cp "$OLD" "$TMP/def/perf.data.old"
	cp "$NEW" "$TMP/def/perf.data"
	(cd "$TMP/def" && timeout -k 5 60 "$PCL" diff >"$TMP/def.out" 2>"$TMP/def.err")
	RC=$?
	if [ "$RC" -eq 0 ] && [ -s "$TMP/def.out" ] && cmp -s "$TMP/def.out" "$TMP/pcl.diff.out"; then
		ok diff-default-files
	else
		not_ok diff-default-files "pcl diff in a directory with perf.data.old and perf.data: exit $RC," \
			"output equal to 'pcl diff perf.data.old perf.data': $(cmp -s "$TMP/def.out" "$TMP/pcl.diff.out" && echo yes || echo no)" \
			"$(show "$TMP/def.err")"
	fi

	# a missing file: one line naming it, non-zero exit
	for which in old new; do
		if [ $which = old ]; then args=("$TMP/nosuch.data" "$NEW"); else args=("$OLD" "$TMP/nosuch.data"); fi
		run miss "$PCL" diff "${args[@]}"
		if [ "$RC" -ne 0 ] && ! crashed "$TMP/miss.err" "$RC" && [ "$(wc -l <"$TMP/miss.err")" -eq 1 ] &&
			grep -q "nosuch.data" "$TMP/miss.err" && [ ! -s "$TMP/miss.out" ]; then
			ok "diff-missing-$which"
		else
			not_ok "diff-missing-$which" "pcl diff with a missing $which file: exit $RC (want non-zero)," \
				"want one stderr line naming it and no output:" "$(show "$TMP/miss.err")" "$(show "$TMP/miss.out")"
		fi
	done

	flame_diff diff-flamegraph "$OLD" "$NEW"
fi
# perf's file against pcl's, both ways
for pair in "perf pcl" "pcl perf"; do
	set -- $pair
	if [ -s "$TMP/a-$1.data" ] && [ -s "$TMP/b-$2.data" ]; then
		flame_diff "diff-flamegraph-$1-$2" "$TMP/a-$1.data" "$TMP/b-$2.data"
	fi
done
