# Shared by t-report-perf.sh and t-report-options.sh (sourced, after lib.sh):
# parsing perf report / pcl report --stdio output and comparing the two.

# --- report parsing and comparison (perl) ------------------------------------
# rows.pl table FILE: the entries of a 'report --stdio' output, one per line,
#   "EVENT | NUM [| NUM] | COLUMN | COLUMN...", sorted by the columns.
#   Columns are cut where the '# ....  ....' line under the column names
#   says; the columns named Overhead, Children or Self are the numbers
#   (without '%'; with --group, Overhead holds one per event), the others
#   the key. Lines that are not entries (comments, blank, call graph) are
#   skipped.
# rows.pl cmp PERF PCL TOL [EMPTY]: exit 0 if both hold the same entries
#   (same keys, as many times) with numbers within TOL; else print what
#   differs, exit 1; exit 2 if PERF holds no entry at all, unless EMPTY
#   (a filter may leave nothing). With ROWS_MERGE in the environment (1:
#   any key; else one entry's text, as perf prints it), such a key with
#   more entries in PERF than in PCL is compared by its sums.
cat >"$TMP/rows.pl" <<'PL'
use strict;
use warnings;
sub fld {
	my ($l, $i, $sp) = @_;
	my $s = $sp->[$i][0];
	my $e = $i == $#$sp ? length($l) : $sp->[$i][1];
	return '' if $s >= length($l);
	my $v = substr($l, $s, $e - $s);
	$v =~ s/^\s+|\s+$//g;
	return $v;
}
sub parse {
	my ($f) = @_;
	my (@spans, @names, @rows);
	my ($prev, $ev) = ('', '');
	open(my $fh, '<', $f) or die "$f: $!\n";
	while (my $l = <$fh>) {
		chomp $l;
		if ($l =~ /^# Samples: .* of events? '(.*)'/) { $ev = $1; }
		if ($l =~ /^# \.+(?:  \.+)*\s*$/) {
			@spans = ();
			while ($l =~ /(\.+)/g) { push @spans, [$-[1], $+[1]]; }
			$spans[0][0] = 0;
			@names = map { fld($prev, $_, \@spans) } 0 .. $#spans;
			$names[0] =~ s/^#\s*//;
			next;
		}
		if ($l =~ /^#/) { $prev = $l; next; }
		# an entry: its percentages, then its columns ('-g flat' prints
		# a percentage alone on a call graph line)
		next unless @spans && $l =~ /^(?: +\d+\.\d+%)+ +\S/;
		my @f = map { fld($l, $_, \@spans) } 0 .. $#spans;
		my (@num, @key);
		for my $i (0 .. $#f) {
			if ($names[$i] =~ /^(Overhead|Children|Self)$/) {
				# --group: one percentage per event in the column
				push @num, map { s/%$//r } split(' ', $f[$i]);
			} else {
				push @key, $f[$i];
			}
		}
		push @rows, [$ev, join(' | ', @key), @num];
	}
	return @rows;
}
sub line { my ($r) = @_; my ($ev, $k, @n) = @$r; return join(' | ', $ev, @n, $k); }
my $mode = shift @ARGV;
if ($mode eq 'table') {
	# sorted by key, so that an entry whose overhead differs shows as a -/+ pair
	print line($_), "\n" for sort { "$a->[0] | $a->[1]" cmp "$b->[0] | $b->[1]" or $b->[2] <=> $a->[2] } parse($ARGV[0]);
	exit 0;
}
my ($pf, $cf, $tol, $empty) = @ARGV;
my @p = parse($pf);
my @c = parse($cf);
exit 2 unless @p || $empty;
no warnings 'numeric';
my (%p, %c, @bad);
push @{$p{"$_->[0] | $_->[1]"}}, [@$_[2 .. $#$_]] for @p;
push @{$c{"$_->[0] | $_->[1]"}}, [@$_[2 .. $#$_]] for @c;
my %all = map { $_ => 1 } keys %p, keys %c;
# ROWS_MERGE: 1 for any key, else the one entry's text as perf prints it
# (columns apart by two blanks or more)
sub merge_key {
	my ($k) = @_;
	return 1 if $ENV{ROWS_MERGE} eq '1';
	(my $want = $ENV{ROWS_MERGE}) =~ s/\s{2,}/ | /g;
	$k =~ s/^[^|]*\| //;
	return $k eq $want;
}
# entries of one key (two symbols of one name) in order of all their numbers
sub bynums { for my $i (0 .. $#$a) { my $c = ($b->[$i] // 0) <=> ($a->[$i] // 0); return $c if $c; } return 0; }
for my $k (sort keys %all) {
	my @a = sort bynums @{$p{$k} || []};
	my @b = sort bynums @{$c{$k} || []};
	if (@a > @b && $ENV{ROWS_MERGE} && merge_key($k)) {
		# perf split one symbol in two: the key's sums compared
		for my $side (\@a, \@b) {
			my @s;
			for my $r (@$side) { $s[$_] += $r->[$_] for 0 .. $#$r; }
			@$side = (\@s);
		}
	}
	if (@a != @b) {
		push @bad, sprintf("%s: perf has %d entr%s (%s), pcl %d (%s)", $k, scalar @a, @a == 1 ? 'y' : 'ies',
			join(' ', map { join('/', @$_) } @a), scalar @b, join(' ', map { join('/', @$_) } @b));
		next;
	}
	for my $i (0 .. $#a) {
		my ($x, $y) = ($a[$i], $b[$i]);
		my $off = @$x != @$y;
		for my $j (0 .. $#$x) {
			$off ||= !defined $y->[$j] || $y->[$j] !~ /^-?[\d.]+$/ || abs($x->[$j] - $y->[$j]) > $tol + 1e-9;
		}
		push @bad, sprintf("%s: perf %s%%, pcl %s%%", $k, join('/', @$x), join('/', @$y)) if $off;
	}
}
exit 0 unless @bad;
printf "%d of %d entries differ (perf %d entries, pcl %d):\n", scalar @bad, scalar keys %all, scalar @p, scalar @c;
print "  $_\n" for @bad[0 .. ($#bad < 14 ? $#bad : 14)];
print "  ...\n" if @bad > 15;
exit 1;
PL

# canon.pl PERF PCL OUT_PERF OUT_PCL: two 'report --stdio' outputs made
#   comparable line for line, into OUT_PERF and OUT_PCL; exit 0 if they are
#   then equal. Perf's closing '#' / '# (Tip: ...)' / '#' lines dropped;
#   every 'NN.NN%' of an entry line masked with '~'s of the same width; the
#   entries (an entry line, its call graph lines, the blank line that closes
#   a call graph) of equal first overhead sorted among themselves; and an
#   entry of pcl's whose call graph differs from perf's only in the order of
#   sibling branches of equal percentage taken as perf's: those orders are
#   free too. (A branch's value may also be a sample count or a period:
#   -g ...,count or ...,period; then equal values are free likewise.)
cat >"$TMP/canon.pl" <<'PL'
use strict;
use warnings;
# tree LINES: the call graph as text that does not depend on the order of
# sibling branches of equal percentage: '|' drawn away, each branch
# ('--NN.NN%--' at some column) with the lines and branches under it,
# runs of siblings of equal percentage sorted.
sub pct { return $_[0] =~ /^--(\d+(?:\.\d+%)?)--/ ? $1 =~ s/%$//r : -1; }
my $ties;    # set by ser: the graph has sibling branches of equal percentage
sub ser {
	my ($n) = @_;
	my @k = map { ser($_) } @{$n->{kids}};
	my @s;
	while (@k) {
		my $p = pct($k[0]);
		my $j = 0;
		$j++ while $j < @k && pct($k[$j]) == $p;
		$ties = 1 if $j > 1;
		push @s, sort(splice(@k, 0, $j));
	}
	return join("\n", @{$n->{text}}) . (@s ? "\n{\n" . join("\n,\n", @s) . "\n}" : '');
}
sub tree {
	my $root = { m => -1, text => [], kids => [] };
	my @stack = ($root);
	for my $l (@_) {
		(my $n = $l) =~ tr/|/ /;
		next if $n =~ /^\s*$/;
		my $ind = length(($n =~ /^(\s*)/)[0]);
		pop @stack while @stack > 1 && $ind <= $stack[-1]{m};
		(my $t = $n) =~ s/^\s+|\s+$//g;
		if ($t =~ /^--\d+(?:\.\d+%)?--/) {
			my $node = { m => $ind, text => [$t], kids => [] };
			push @{$stack[-1]{kids}}, $node;
			push @stack, $node;
		} else {
			push @{$stack[-1]{text}}, $t;
		}
	}
	$ties = 0;
	my $t = ser($root);
	return ($t, $ties);
}
# canon FILE: the output as a list of [KEY, TEXT, TIES]: KEY undef for a
# line that is no entry; else TEXT the entry's text (entry line with its
# overheads masked, call graph lines, closing blank line), KEY the masked
# line and the call graph as a tree, TIES true if the tree has sibling
# branches of equal percentage; runs of entries of equal first overhead
# sorted by KEY.
sub canon {
	open(my $fh, '<', $_[0]) or die "$_[0]: $!\n";
	my @l = <$fh>;
	chomp @l;
	splice(@l, -3) if @l >= 3 && $l[-3] eq '#' && $l[-2] =~ /^# \(.*\)$/ && $l[-1] eq '#';
	# perf 6.1 appends ' (inlined)' to a fractal graph's '[...]' remainder or
	# not, from one run to the next (an unset flag); pcl prints '[...]'
	s/--\[\.\.\.\] \(inlined\)$/--[...]/ for @l;
	my @tok;    # [first overhead, entry line, [call graph lines], blank after] or [undef, line]
	my $cur;
	for my $l (@l) {
		if ($l =~ /^( +\d+\.\d+%)(?: +\d+\.\d+%)* +\S/) {
			$cur = [$1, $l, [], 0];
			push @tok, $cur;
		} elsif ($cur && $l =~ /^#/) {
			$cur = undef;
			push @tok, [undef, $l];
		} elsif ($cur && $l eq '') {
			if (@{$cur->[2]}) { $cur->[3] = 1; }
			else { push @tok, [undef, $l]; }
			$cur = undef;
		} elsif ($cur) {
			push @{$cur->[2]}, $l;
		} else {
			push @tok, [undef, $l];
		}
	}
	my @out;
	for (my $i = 0; $i < @tok;) {
		if (!defined $tok[$i][0]) { push @out, [undef, $tok[$i++][1]]; next; }
		my $j = $i;
		$j++ while $j < @tok && defined $tok[$j][0] && $tok[$j][0] eq $tok[$i][0];
		my @e;
		for my $t (@tok[$i .. $j - 1]) {
			(my $row = $t->[1]) =~ s/^((?: +\d+\.\d+%)+)/my $m = $1; $m =~ s{ *\d+\.\d+%}{'~' x length($&)}ge; $m/e;
			my $text = join("\n", $row, @{$t->[2]}, $t->[3] ? ('') : ());
			my ($tr, $ties) = tree(@{$t->[2]});
			push @e, [$row . "\n" . $tr, $text, $ties];
		}
		push @out, sort { $a->[0] cmp $b->[0] } @e;
		$i = $j;
	}
	return @out;
}
my ($pf, $cf, $po, $co) = @ARGV;
my @p = canon($pf);
my @c = canon($cf);
# An entry of pcl's that differs from perf's only in the order of sibling
# branches of equal percentage is perf's. (Its '|' lines are then taken on
# trust: the other entries check them.)
for my $i (0 .. ($#p < $#c ? $#p : $#c)) {
	$c[$i][1] = $p[$i][1] if defined $p[$i][0] && defined $c[$i][0] && $p[$i][0] eq $c[$i][0] && $p[$i][2];
}
open(my $o, '>', $po) or die;
print $o "$_->[1]\n" for @p;
close $o;
open($o, '>', $co) or die;
print $o "$_->[1]\n" for @c;
close $o;
exit(join("\n", map { $_->[1] } @p) eq join("\n", map { $_->[1] } @c) ? 0 : 1);
PL

# heads FILE: the lines of a report that describe the samples and the
# columns: '# Total Lost Samples:', '# Samples:', '# Event count (approx.):',
# and each '# ....' line with the column-name line above it.
heads() {
	awk '/^# (Total Lost Samples|Samples|Event count \(approx\.\)): / { print }
		/^# \.\.+/ { print prev; print }
		{ prev = $0 }' "$1"
}

# report_pair TAG FILE ARGS...: perf report --stdio ARGS -i FILE into
# $TMP/TAG.perf.{out,err} and pcl report likewise into $TMP/TAG.pcl.*; exit
# statuses in PRC and CRC.
report_pair() {
	local tag=$1 f=$2
	shift 2
	run_long "$tag.perf" 60 perf report --stdio "$@" -i "$f"
	PRC=$RC
	run_long "$tag.pcl" 60 "$PCL" report --stdio "$@" -i "$f"
	CRC=$RC
}
# plt_slots FILE...: every PLT slot, named NAME@plt or _init with or
# without +OFFSET (hex or decimal), anywhere on a line, becomes
# '[plt slot]', and the blanks after it one blank: perf 6.1 names a slot
# either way from one run to the next (see compare below), and the offset
# differs with the name.
plt_slots() {
	sed -i -E 's/(^|[][ \t(-])(_init|[^][ \t(]*@plt)(\+(0x)?[0-9a-f]+)?([ \t)]+|$)/\1[plt slot] /g; s/\[plt slot\] ([)])/[plt slot]\1/g; s/\[plt slot\] $/[plt slot]/' "$@" 2>/dev/null
}
# compare NAME TAG WHAT DESC: the checks on the outputs of report_pair TAG;
# WHAT is a list of "rows", "header", "text", and "empty" if perf may show
# no entry (a filter that leaves nothing); DESC says what ran.
compare() {
	local name=$1 tag=$2 what=$3 desc=$4 rc empty=
	[[ $what == *empty* ]] && empty=1
	local P=$TMP/$tag.perf C=$TMP/$tag.pcl
	# A PLT slot: pcl names it NAME@plt in every file (a deliberate
	# difference); perf 6.1 does so only at times and otherwise gives it to
	# _init, in its own files as in pcl's and in streams (CI runs have
	# shown each). As an entry's symbol and as a call graph frame, both
	# become '[plt slot]'.
	sed -i -E 's/(^|[ -])(_init|[^ -]+@plt)( *)$/\1[plt slot]\3/' "$P.out" "$C.out" 2>/dev/null
	# An address in no map ([unknown]) that chains of kernel and of user
	# samples share is one entry in both; its level is that of the chain
	# that made the entry, and perf's order of making and collapsing
	# entries is not the samples' (seen once in about 40 gcc
	# recordings): a '[k]' or '[.]' there is not compared.
	sed -i -E 's/( \[unknown\] +)\[[k.]\] /\1[?] /' "$P.out" "$C.out" 2>/dev/null
	if [ "$PRC" -ne 0 ]; then
		not_ok "$name" "oracle: perf report $desc: exit $PRC" "$(show "$P.err")"
		return
	fi
	if [ "$CRC" -ne 0 ] || crashed "$C.err" "$CRC"; then
		not_ok "$name" "pcl report $desc: exit $CRC (want 0, as perf); stderr:" "$(show "$C.err")" \
			"stdout:" "$(show "$C.out" 10)"
		return
	fi
	if [[ $what == *rows* ]]; then
		perl "$TMP/rows.pl" cmp "$P.out" "$C.out" 0.01 ${empty:+1} >"$TMP/$tag.cmp" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			ok "$name"
		elif [ $rc -eq 2 ]; then
			not_ok "$name" "oracle: perf report $desc shows no entry:" "$(show "$P.out" 20)"
		else
			perl "$TMP/rows.pl" table "$P.out" >"$TMP/$tag.perf.rows"
			perl "$TMP/rows.pl" table "$C.out" >"$TMP/$tag.pcl.rows"
			not_ok "$name" "pcl report $desc: entries differ from perf's (overheads within 0.01):" \
				"$(cat "$TMP/$tag.cmp")" "entries, sorted (event | overhead | comm | dso | symbol):" \
				"$(diff -u --label perf --label pcl "$TMP/$tag.perf.rows" "$TMP/$tag.pcl.rows" | head -40)"
		fi
	fi
	if [[ $what == *header* ]]; then
		heads "$P.out" >"$TMP/$tag.perf.heads"
		heads "$C.out" >"$TMP/$tag.pcl.heads"
		if [ ! -s "$TMP/$tag.perf.heads" ]; then
			not_ok "$name-header" "oracle: perf report $desc has no header lines:" "$(show "$P.out")"
		else
			diff_or_ok "$name-header" "$TMP/$tag.perf.heads" "$TMP/$tag.pcl.heads" perf pcl
		fi
	fi
	if [[ $what == *text* ]]; then
		if ! perl "$TMP/canon.pl" "$P.out" "$C.out" "$TMP/$tag.perf.canon" "$TMP/$tag.pcl.canon"; then
			not_ok "$name-text" "pcl report $desc: text differs from perf's (overheads masked, equal ones in any order):" \
				"$(diff -u --label perf --label pcl "$TMP/$tag.perf.canon" "$TMP/$tag.pcl.canon" | head -40)"
		elif [ ! -s "$P.err" ] && [ -s "$C.err" ]; then
			not_ok "$name-text" "pcl report $desc: stdout as perf's, but stderr has lines (perf's has none):" \
				"$(show "$C.err")"
		else
			ok "$name-text"
		fi
	fi
}

