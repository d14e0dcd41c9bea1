#!/usr/bin/env bash
# pcl report --format=pprof: a gzipped perftools.profiles.Profile. The
# contract is protoc's decoder with the schema (tests/proto/profile.proto);
# go and pprof are not needed. For a file recorded by pcl and one recorded
# by perf (the hot workload, -g), each check prefixed by the recorder:
#   BY-decode    the file gunzips and protoc decodes it as a Profile
#   BY-valid     string_table[0] is "" and no string twice; every id a
#                sample, location or line refers to exists; ids unique;
#                each location's address lies inside its mapping
#   BY-types     sample_type [samples/count, EVENT/nanoseconds],
#                period_type EVENT/nanoseconds, default EVENT, where EVENT
#                is the name pcl report gives the event (cpu-clock, or
#                perf's cpu-clock:ppp)
#   BY-count-pcl / BY-count-perf   the sum of values[0] equals the SAMPLE
#                count of pcl report --stats / perf report --stats
#   BY-period-pcl / BY-period-perf the sum of values[1] equals '# Event
#                count (approx.):' of pcl report --stdio / perf report --stdio
#   BY-hot       hot_leaf is a function; the stack hot_leaf, middle, outer,
#                main (innermost first) holds most samples
#   BY-buildid   a mapping of the workload's path has its build id (readelf
#                -n, and perf buildid-list of the file)
#   BY-labels    every sample has thread=COMM (the workload's) and pid, tid
#   BY-comments  the header facts are comments ("file: ...")
#   BY-main      the first mapping (pprof's main binary) is the workload's
#   BY-time      time_nanos is within a minute of when the recording was
#                made (the wall clock, not the time since boot)
# and for pcl and perf record -k (the CLOCK_DATA header) BY-time too; for
# an executable without symbols (pcl-strip), its "[unknown]" locations are
# one per address, inside the executable's mapping, not one per DSO.
# Also: the same file exports to the same bytes twice (gzip without a
# time stamp); a comm that is not UTF-8 still decodes (protobuf refuses
# bad UTF-8 in a string); an empty recording gives a valid profile with no
# samples; a write error (stdout on /dev/full) fails with a message.
. "$(dirname "$0")/lib.sh"

has_record || { skip export-pprof "this pcl has no record command"; exit 0; }
command -v perl >/dev/null 2>&1 || { skip export-pprof "perl is not installed (the checks are in perl)"; exit 0; }
PROTO_DIR="$(cd "$(dirname "$0")/.." && pwd)/proto"
have_protoc=1
command -v protoc >/dev/null 2>&1 || have_protoc=0
# The exact chain main -> outer -> middle -> hot_leaf needs clang's frame pointers.
if hot=$(workload_fp hot); then
	exact=1
else
	hot=$(workload hot) || { not_ok export-pprof-workload "cannot build tests/workloads/hot.c"; exit 0; }
	exact=0
fi

# summary.pl DECODED: what a protoc --decode text of a Profile says, one
# "key value" per line (strings resolved through the string table).
cat >"$TMP/summary.pl" <<'PL'
use strict;
use warnings;
my (@stack, @st, @samples, %loc, %fn, %map, @types, @comments, %top);
my ($cur, $bad) = (undef, '');
sub unq { my $s = shift; $s =~ s/^"|"$//g; $s =~ s/\\(.)/$1/g; return $s; }
open(my $fh, '<', $ARGV[0]) or die "$ARGV[0]: $!\n";
while (my $l = <$fh>) {
	chomp $l;
	$l =~ s/^\s+//;
	if ($l =~ /^(\w+) \{$/) {
		my $m = { _kind => $1 };
		push @{$stack[-1]{$1}}, $m if @stack;
		push @stack, $m;
		next;
	}
	if ($l eq '}') {
		my $m = pop @stack;
		next if @stack; # nested: kept in its parent
		my $k = $m->{_kind};
		if ($k eq 'sample') { push @samples, $m; }
		elsif ($k eq 'location') { $bad .= "location id $m->{id}[0] twice\n" if $loc{$m->{id}[0]}; $loc{$m->{id}[0]} = $m; }
		elsif ($k eq 'function') { $bad .= "function id $m->{id}[0] twice\n" if $fn{$m->{id}[0]}; $fn{$m->{id}[0]} = $m; }
		elsif ($k eq 'mapping') { $bad .= "mapping id $m->{id}[0] twice\n" if $map{$m->{id}[0]}; $map{$m->{id}[0]} = $m; }
		elsif ($k eq 'sample_type') { push @types, $m; }
		else { $top{$k} = $m; }
		next;
	}
	my ($k, $v) = $l =~ /^(\w+): (.*)$/ or next;
	if (@stack) { push @{$stack[-1]{$k}}, $v; next; }
	if ($k eq 'string_table') { push @st, unq($v); }
	elsif ($k eq 'comment') { push @comments, $v; }
	else { $top{$k} = $v; }
}
my %seen;
$bad .= "string_table[0] is not empty\n" unless @st && $st[0] eq '';
for (@st) { $bad .= "string '$_' twice\n" if $seen{$_}++; }
sub s_ { my $i = shift // 0; $bad .= "string index $i out of range\n" if $i > $#st; return $st[$i] // ''; }
sub vt { my $m = shift; return s_($m->{type}[0]) . '/' . s_($m->{unit}[0]); }
sub fname { my $l = $loc{$_[0]} or return '?'; my $f = $fn{$l->{line}[0]{function_id}[0] // 0}; return $f ? s_($f->{name}[0]) : '?'; }
print "types ", join(',', map { vt($_) } @types), "\n";
print "period_type ", ($top{period_type} ? vt($top{period_type}) : ''), "\n";
print "default ", s_($top{default_sample_type} // 0), "\n";
my ($n, $s0, $s1, $labels, %stacks) = (0, 0, 0, 1);
for my $sm (@samples) {
	my @v = @{$sm->{value} || []};
	$bad .= "a sample has " . @v . " values\n" if @v != 2;
	$n++;
	$s0 += $v[0] // 0;
	$s1 += $v[1] // 0;
	for my $id (@{$sm->{location_id} || []}) { $bad .= "location $id missing\n" unless $loc{$id}; }
	$stacks{join(';', map { fname($_) } @{$sm->{location_id} || []})} += $v[0] // 0;
	my %lab;
	for my $lb (@{$sm->{label} || []}) {
		$lab{s_($lb->{key}[0])} = defined $lb->{str} ? s_($lb->{str}[0]) : $lb->{num}[0] // 0;
	}
	$labels = 0 unless ($lab{thread} // '') ne '' && ($lab{pid} // 0) > 0 && ($lab{tid} // 0) > 0;
	print "thread $lab{thread}\n" if defined $lab{thread};
}
for my $l (values %loc) {
	my $m = $l->{mapping_id}[0] // 0;
	$bad .= "mapping $m missing\n" if $m && !$map{$m};
	if ($m && $map{$m}) {
		# an address lies in its mapping
		my ($a, $lo, $hi) = ($l->{address}[0] // 0, $map{$m}{memory_start}[0] // 0, $map{$m}{memory_limit}[0] // 0);
		$bad .= "location $l->{id}[0]: address $a outside mapping $m [$lo, $hi)\n" unless $a >= $lo && $a < $hi;
	}
	$bad .= "location $l->{id}[0]: no line\n" unless $l->{line};
	for my $ln (@{$l->{line} || []}) { $bad .= "function missing\n" unless $fn{$ln->{function_id}[0] // 0}; }
}
print "function ", s_($_->{name}[0]), "\n" for values %fn;
print "mapping ", s_($_->{filename}[0]), " ", s_($_->{build_id}[0] // 0), "\n" for values %map;
print "comment ", s_($_), "\n" for @comments;
print "stack $stacks{$_} $_\n" for sort { $stacks{$b} <=> $stacks{$a} } keys %stacks;
print "samples $n\nsum0 $s0\nsum1 $s1\nlabels $labels\n";
# pprof takes the first mapping for the main binary
my @maps = sort { $a->{id}[0] <=> $b->{id}[0] } values %map;
print "first_mapping ", (@maps ? s_($maps[0]{filename}[0]) : ''), "\n";
print "time_nanos ", ($top{time_nanos} // 0), "\n";
# the locations of code no symbol covers: "unknown MAPPING-FILE ADDRESS"
for my $l (values %loc) {
	next unless fname($l->{id}[0]) eq '[unknown]';
	my $m = $map{$l->{mapping_id}[0] // 0};
	print "unknown ", ($m ? s_($m->{filename}[0]) : '-'), " ", $l->{address}[0] // 0, "\n";
}
print "bad $_\n" for split /\n/, $bad;
PL
val() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# pcl_stat_samples FILE: the SAMPLE count of pcl report --stats.
pcl_stat_samples() { "$PCL" report --stats -i "$1" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }
event_count() { "$@" 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | head -1; }

check_file() { # BY: checks on $TMP/BY.data exported to $TMP/BY.pb.gz
	local by=$1 F=$TMP/$1.data P=$TMP/$1.pb.gz S=$TMP/$1.sum
	run_long "exp-$by" 60 "$PCL" report -i "$F" --format=pprof -o "$P"
	if [ "$RC" -ne 0 ] || crashed "$TMP/exp-$by.err" "$RC" || [ ! -s "$P" ]; then
		not_ok "$by-export" "pcl report --format=pprof: exit $RC (want 0)" "$(show "$TMP/exp-$by.err")"
		return
	fi
	ok "$by-export"
	if [ $have_protoc = 0 ]; then
		skip "$by-decode" "protoc is not installed"
		return
	fi
	if ! gzip -dc "$P" >"$TMP/$by.pb" 2>"$TMP/$by.gz.err" ||
		! protoc --proto_path="$PROTO_DIR" --decode=perftools.profiles.Profile profile.proto \
			<"$TMP/$by.pb" >"$TMP/$by.txt" 2>"$TMP/$by.protoc.err"; then
		not_ok "$by-decode" "gzip -dc | protoc --decode=perftools.profiles.Profile failed" \
			"$(cat "$TMP/$by.gz.err" "$TMP/$by.protoc.err" | head -5)"
		return
	fi
	ok "$by-decode"
	perl "$TMP/summary.pl" "$TMP/$by.txt" >"$S"

	if grep -q '^bad ' "$S"; then
		not_ok "$by-valid" "$(grep '^bad ' "$S" | head -10)"
	else
		ok "$by-valid"
	fi
	# the event as the file names it ('cpu-clock', perf's 'cpu-clock:ppp')
	local types ptype def ev
	types=$(val types "$S") ptype=$(val period_type "$S") def=$(val default "$S")
	ev=$("$PCL" report --stdio -i "$F" 2>/dev/null | sed -n "s/^# Samples: .* of event '\(.*\)'\$/\1/p" | head -1)
	if [ -n "$ev" ] && [ "${ev%%:*}" = cpu-clock ] && [ "$types" = "samples/count,$ev/nanoseconds" ] &&
		[ "$ptype" = "$ev/nanoseconds" ] && [ "$def" = "$ev" ]; then
		ok "$by-types"
	else
		not_ok "$by-types" "sample_type '$types' (want samples/count,$ev/nanoseconds)" \
			"period_type '$ptype' (want $ev/nanoseconds), default '$def' (want $ev)"
	fi

	local sum0 sum1 want
	sum0=$(val sum0 "$S") sum1=$(val sum1 "$S")
	want=$(pcl_stat_samples "$F")
	if [ -n "$want" ] && [ "$sum0" = "$want" ] && [ "$sum0" -gt 0 ]; then
		ok "$by-count-pcl"
	else
		not_ok "$by-count-pcl" "sum of values[0]: $sum0, pcl report --stats SAMPLE: '$want' (want equal, > 0)"
	fi
	want=$(event_count "$PCL" report --stdio -i "$F")
	if [ -n "$want" ] && [ "$sum1" = "$want" ]; then
		ok "$by-period-pcl"
	else
		not_ok "$by-period-pcl" "sum of values[1]: $sum1, pcl report --stdio event count: '$want'"
	fi
	if have_perf; then
		want=$(perf_samples "$F")
		if [ -n "$want" ] && [ "$sum0" = "$want" ]; then
			ok "$by-count-perf"
		else
			not_ok "$by-count-perf" "sum of values[0]: $sum0, perf report --stats SAMPLE: '$want'"
		fi
		want=$(event_count perf report --stdio -i "$F")
		if [ -n "$want" ] && [ "$sum1" = "$want" ]; then
			ok "$by-period-perf"
		else
			not_ok "$by-period-perf" "sum of values[1]: $sum1, perf report --stdio event count: '$want'"
		fi
	else
		skip "$by-count-perf" "perf is not installed"
		skip "$by-period-perf" "perf is not installed"
	fi

	# most samples end in hot_leaf (about 80%), called as the workload says
	local chain='hot_leaf;middle;outer;main' top
	[ $exact = 1 ] || chain='hot_leaf'
	top=$(awk -v c="$chain" '$1 == "stack" && index($3 ";", c ";") == 1 { n += $2 } END { print n + 0 }' "$S")
	if grep -qx 'function hot_leaf' "$S" && [ $((top * 2)) -gt "$sum0" ]; then
		ok "$by-hot"
	else
		not_ok "$by-hot" "want function hot_leaf and stacks starting '$chain' over half of $sum0 samples: $top" \
			"$(grep '^stack' "$S" | head -5)"
	fi

	local bid pbid comm
	bid=$(readelf -n "$hot" 2>/dev/null | sed -n 's/^ *Build ID: //p' | head -1)
	pbid=$(have_perf && perf buildid-list -i "$F" 2>/dev/null | awk -v p="$hot" '$2 == p { print $1; exit }')
	if [ -z "$bid" ]; then
		skip "$by-buildid" "the workload has no build id"
	elif grep -qxF "mapping $hot $bid" "$S" && { [ -z "$pbid" ] || [ "$pbid" = "$bid" ]; }; then
		ok "$by-buildid"
	else
		not_ok "$by-buildid" "want a mapping '$hot' with build id $bid (readelf), perf buildid-list: '$pbid'" \
			"$(grep '^mapping' "$S")"
	fi

	# the comm: the workload's name, cut to 15 characters as the kernel does
	comm=$(basename "$hot" | cut -c1-15)
	if [ "$(val labels "$S")" = 1 ] && grep -qxF "thread $comm" "$S"; then
		ok "$by-labels"
	else
		not_ok "$by-labels" "want a thread label (comm '$comm') and pid, tid on every sample" \
			"$(grep '^thread' "$S" | sort | uniq -c | head -5)"
	fi
	if grep -qxF "comment file: $F" "$S"; then
		ok "$by-comments"
	else
		not_ok "$by-comments" "want a comment 'file: $F'" "$(grep '^comment' "$S")"
	fi
	check_main "$by" "$hot"
	check_time "$by"
}
# check_main BY EXE: pprof's main binary, the first mapping, is EXE.
check_main() {
	local first
	first=$(sed -n 's/^first_mapping //p' "$TMP/$1.sum")
	if [ "$first" = "$2" ]; then ok "$1-main"; else
		not_ok "$1-main" "want the first mapping '$2' (the main binary), got '$first'" \
			"$(grep '^mapping' "$TMP/$1.sum" | head -5)"
	fi
}
# check_time BY: time_nanos within a minute of the wall clock when $TMP/BY.data was recorded.
check_time() {
	local t want=${WHEN[$1]:-0}
	t=$(val time_nanos "$TMP/$1.sum")
	t=$(( ${t:-0} / 1000000000 ))
	if [ "$want" -gt 0 ] && [ $((t - want)) -gt -60 ] && [ $((t - want)) -lt 60 ]; then
		ok "$1-time"
	else
		not_ok "$1-time" "time_nanos says $(date -u -d "@$t" '+%F %T' 2>/dev/null || echo "$t") UTC," \
			"the recording was made at $(date -u -d "@$want" '+%F %T') UTC (want within a minute)"
	fi
}
declare -A WHEN

# About 0.4 s at 2000 Hz: some 800 samples.
WHEN[pcl]=$(date +%s)
if record_to export-pprof pcl pcl -g -F 2000 -o "$TMP/pcl.data" -- "$hot" 400; then
	check_file pcl
	# deterministic: the same bytes for the same file
	if "$PCL" report -i "$TMP/pcl.data" --format=pprof -o "$TMP/again.pb.gz" 2>/dev/null &&
		cmp -s "$TMP/pcl.pb.gz" "$TMP/again.pb.gz"; then
		ok pcl-same-bytes
	else
		not_ok pcl-same-bytes "two exports of one file differ"
	fi
	# a write error is an error, with a message
	if [ -w /dev/full ]; then
		"$PCL" report -i "$TMP/pcl.data" --format=pprof >/dev/full 2>"$TMP/full.err"
		rc=$?
		if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ -s "$TMP/full.err" ]; then
			ok pcl-write-error
		else
			not_ok pcl-write-error "stdout on /dev/full: exit $rc (want 1) with a message" "$(show "$TMP/full.err")"
		fi
	else
		skip pcl-write-error "no /dev/full"
	fi
fi
if have_perf; then
	WHEN[perf]=$(date +%s)
	record_to export-pprof perf perf -g -F 2000 -o "$TMP/perf.data" -- "$hot" 400 && check_file perf
else
	skip perf "perf is not installed"
fi

# export_sum BY: $TMP/BY.data to pprof, decoded and summed up in $TMP/BY.sum. False on failure.
export_sum() {
	run_long "exp-$1" 60 "$PCL" report -i "$TMP/$1.data" --format=pprof -o "$TMP/$1.pb.gz"
	if [ "$RC" -ne 0 ] || ! gzip -dc "$TMP/$1.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode=perftools.profiles.Profile profile.proto >"$TMP/$1.txt" 2>"$TMP/$1.err"; then
		not_ok "$1-export" "pcl report --format=pprof and protoc: exit $RC" "$(show "$TMP/exp-$1.err")" \
			"$(show "$TMP/$1.err")"
		return 1
	fi
	perl "$TMP/summary.pl" "$TMP/$1.txt" >"$TMP/$1.sum"
}
if [ $have_protoc = 1 ]; then
	# -k: the time comes from the CLOCK_DATA header (written by pcl and perf alike)
	for by in pcl perf; do
		[ $by = pcl ] || have_perf || continue
		WHEN[$by-k]=$(date +%s)
		# an old mtime: only the header can give the right date
		record_to export-pprof $by $by-k -k monotonic -F 1000 -o "$TMP/$by-k.data" -- "$hot" 100 &&
			touch -d '2020-01-01 00:00:00' "$TMP/$by-k.data" &&
			export_sum $by-k && check_time $by-k
		# perf reads the reference time pcl writes
		if [ $by = pcl ] && have_perf && [ -s "$TMP/pcl-k.data" ]; then
			ref=$(perf report -i "$TMP/pcl-k.data" --header-only 2>/dev/null |
				sed -n 's/^# reference time: .* = \([0-9]*\)\.[0-9]* (TOD) = .*(monotonic)$/\1/p')
			if [ -n "$ref" ] && [ $((ref - WHEN[pcl-k])) -gt -60 ] && [ $((ref - WHEN[pcl-k])) -lt 60 ]; then
				ok pcl-k-clock-data
			else
				not_ok pcl-k-clock-data "perf report --header-only: want '# reference time: ... (monotonic)' near $(date -u -d "@${WHEN[pcl-k]}" '+%T') UTC" \
					"$(perf report -i "$TMP/pcl-k.data" --header-only 2>&1 | grep -i 'clock\|reference')"
			fi
		fi
	done
	# without symbols (nor a build id to find them by): an address per location
	cp "$hot" "$TMP/hotstrip" && strip --strip-all --remove-section=.note.gnu.build-id "$TMP/hotstrip"
	if record_to export-pprof pcl pcl-strip -g -F 2000 -o "$TMP/pcl-strip.data" -- "$TMP/hotstrip" 200 &&
		export_sum pcl-strip; then
		check_main pcl-strip "$TMP/hotstrip"
		n=$(awk -v m="$TMP/hotstrip" '$1 == "unknown" && $2 == m { print $3 }' "$TMP/pcl-strip.sum" | sort -u | wc -l)
		# hot_leaf, middle, outer, main at least: four places, each a location
		if [ "$n" -ge 4 ] && ! grep -q '^bad ' "$TMP/pcl-strip.sum"; then
			ok pcl-strip-unknown
		else
			not_ok pcl-strip-unknown "want an [unknown] location per sampled address in $TMP/hotstrip (4 or more), got $n" \
				"$(grep '^unknown\|^bad' "$TMP/pcl-strip.sum" | head -8)"
		fi
	fi
fi

# A command name that is not UTF-8 (a comm is bytes): still a valid profile,
# the bad bytes as U+FFFD.
mkdir -p "$TMP/u"
bad="$TMP/u/h$(printf '\377\376')x"
if cp "$hot" "$bad" && record_to export-pprof pcl utf8 -F 1000 -o "$TMP/utf8.data" -- "$bad" 100; then
	run_long exp-utf8 30 "$PCL" report -i "$TMP/utf8.data" --format=pprof -o "$TMP/utf8.pb.gz"
	if [ "$RC" -ne 0 ] || crashed "$TMP/exp-utf8.err" "$RC"; then
		not_ok utf8-export "exit $RC (want 0)" "$(show "$TMP/exp-utf8.err")"
	elif [ $have_protoc = 0 ]; then
		skip utf8-export "protoc is not installed"
	elif gzip -dc "$TMP/utf8.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode=perftools.profiles.Profile profile.proto >"$TMP/utf8.txt" 2>"$TMP/utf8.err" &&
		grep -qF 'string_table: "h\357\277\275\357\277\275x"' "$TMP/utf8.txt"; then
		ok utf8-export
	else
		not_ok utf8-export "want it decoded, with the comm 'h\357\277\275\357\277\275x'" \
			"$(show "$TMP/utf8.err")" "$(grep -a '^string_table: "h' "$TMP/utf8.txt")"
	fi
fi

# An empty recording (a period far longer than the run): a valid profile,
# the two sample types, no sample, no location.
if record_to export-pprof pcl empty -c 1000000000000 -o "$TMP/empty.data" -- true; then
	run_long exp-empty 30 "$PCL" report -i "$TMP/empty.data" --format=pprof -o "$TMP/empty.pb.gz"
	if [ "$RC" -ne 0 ] || crashed "$TMP/exp-empty.err" "$RC"; then
		not_ok empty-export "exit $RC (want 0)" "$(show "$TMP/exp-empty.err")"
	elif [ $have_protoc = 0 ]; then
		skip empty-export "protoc is not installed"
	elif gzip -dc "$TMP/empty.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode=perftools.profiles.Profile profile.proto >"$TMP/empty.txt" 2>"$TMP/empty.err"; then
		perl "$TMP/summary.pl" "$TMP/empty.txt" >"$TMP/empty.sum"
		if [ "$(val samples "$TMP/empty.sum")" = 0 ] && ! grep -q '^bad' "$TMP/empty.sum" &&
			! grep -q '^location' "$TMP/empty.txt" && grep -q '^types samples/count,' "$TMP/empty.sum"; then
			ok empty-export
		else
			not_ok empty-export "want a valid profile with no sample" "$(show "$TMP/empty.sum")"
		fi
	else
		not_ok empty-export "does not decode" "$(show "$TMP/empty.err")"
	fi
fi
