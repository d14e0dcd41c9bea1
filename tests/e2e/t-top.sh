#!/bin/bash
# pcl top --stdio: perf top's live listing, on a busy workload of known
# shape (tests/workloads/hot.c: hot_leaf about 80%, warm_helper 20%) and on
# one that changes function half-way (phases.c), for decay against -z.
# Each run is stopped by SIGINT, as a user stops perf top.
. "$(dirname "$0")/lib.sh"

if ! has_cmd top; then
	skip top "this pcl has no top command"
	exit 0
fi

# top_run TAG SECS ARGS...: pcl top ARGS for SECS seconds, then SIGINT; status in RC.
top_run() {
	local tag=$1 secs=$2
	shift 2
	"$PCL" top "$@" </dev/null >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	local pid=$!
	sleep "$secs"
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	RC=$?
}

# screens FILE: one line per screen: "N<TAB>header<TAB>entry|entry|...",
# an entry being "PCT DSO LEVEL SYMBOL" (colours and CRs dropped).
screens() {
	perl -e '
		local $/; my $t = <>; $t =~ s/\r//g; $t =~ s/\e\[[0-9;]*m//g;
		my @s = split /\e\[H\e\[2J\n/, $t; shift @s;
		my $n = 0;
		for my $s (@s) {
			my @l = split /\n/, $s;
			my @e;
			for my $l (@l[3 .. $#l]) {
				next unless defined $l;
				if ($l =~ /^\s+(\d+\.\d+)%(?:\s+\d+\.\d+%)?\s+(\S+)\s+\[(.)\]\s+(\S+)/) {
					push @e, "$1 $2 $3 $4";
				}
			}
			printf "%d\t%s\t%s\n", ++$n, $l[0] // "", join("|", @e);
		}' "$1"
}
# last_entries FILE: the entries of the last screen, one per line.
last_entries() { screens "$1" | tail -1 | cut -f3 | tr '|' '\n'; }

HOT=$(workload_fp hot 2>/dev/null || workload hot)
PHASES=$(workload phases)
if [ -z "$HOT" ] || [ -z "$PHASES" ]; then
	skip top "the workloads could not be built"
	exit 0
fi
HOTNAME=$(basename "$HOT")
"$HOT" 120000 &
WPID=$!
trap 'kill $WPID 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3

# ---- the listing on a known workload ----
top_run hot 4.5 --stdio -e cpu-clock -d 1 -p "$WPID"
n=$(screens "$TMP/hot.out" | wc -l)
first=$(last_entries "$TMP/hot.out" | head -1)
if [ "$RC" -ne 0 ] || crashed "$TMP/hot.err" "$RC"; then
	not_ok top-stdio-runs "exit $RC (want 0 after SIGINT)" "$(show "$TMP/hot.err")"
elif [ "$n" -lt 3 ]; then
	not_ok top-stdio-runs "$n screens in 4.5 s at -d 1 (want >= 3)" "$(show "$TMP/hot.out" 30)"
else
	ok top-stdio-runs
fi
if [ "$(echo "$first" | cut -d' ' -f2-4)" = "$HOTNAME . hot_leaf" ] &&
	last_entries "$TMP/hot.out" | grep -q " $HOTNAME \. warm_helper$"; then
	ok top-hot-symbol
else
	not_ok top-hot-symbol "want hot_leaf of $HOTNAME first, warm_helper listed; last screen:" \
		"$(last_entries "$TMP/hot.out")"
fi
sum=$(last_entries "$TMP/hot.out" | awk '{ s += $1 } END { printf "%.2f", s }')
if awk -v s="$sum" 'BEGIN { exit !(s > 80 && s <= 100.05) }'; then
	ok top-percent-sum
else
	not_ok top-percent-sum "entries sum to $sum% (want 80..100)" "$(last_entries "$TMP/hot.out")"
fi
# perf top --stdio's layout: the screen cleared, the header, 79 dashes, a blank line
hdr_re="^   PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9.]+%  exact: +[0-9.]+% lost: [0-9]+/[0-9]+ drop: 0/0 \[4000Hz cpu-clock\],  \(target_pid: $WPID\)\$"
layout=$(perl -e 'local $/; $_ = <>; my @s = split /\e\[H\e\[2J\n/; shift @s;
	for (@s) { my @l = split /\n/, $_, -1; print "bad dashes\n" unless $l[1] eq "-" x 79;
		print "bad blank\n" unless defined $l[2] && $l[2] eq ""; print "$l[0]\n"; }' "$TMP/hot.out")
if ! echo "$layout" | grep -q "^bad" && ! echo "$layout" | grep -vqE "$hdr_re" &&
	[ "$(head -c 8 "$TMP/hot.out" | od -An -c | tr -d ' ')" = '033[H033[2J\n' ]; then
	ok top-stdio-layout
else
	not_ok top-stdio-layout "want each screen: ESC[H ESC[2J, a header matching" "$hdr_re" \
		", 79 dashes, a blank line; got:" "$(show "$TMP/hot.out" 12 | cat -A)"
fi
# the first screen comes at once, before any sample (as perf's)
if [ -z "$(screens "$TMP/hot.out" | head -1 | cut -f3)" ]; then
	ok top-first-screen-empty
else
	not_ok top-first-screen-empty "$(screens "$TMP/hot.out" | head -1)"
fi

# ---- perf top on the same workload: the same top symbol and DSO ----
if have_perf && command -v script >/dev/null 2>&1; then
	timeout -s INT 4.5 script -qc "perf top --stdio -e cpu-clock -d 1 -p $WPID" /dev/null \
		</dev/null >"$TMP/perf.out" 2>&1
	pfirst=$(last_entries "$TMP/perf.out" | head -1)
	if [ -z "$pfirst" ]; then
		skip top-vs-perf "perf top showed no entry: $(tail -3 "$TMP/perf.out" | tr '\n' ' ')"
	elif [ "$(echo "$pfirst" | cut -d' ' -f2-4)" = "$(echo "$first" | cut -d' ' -f2-4)" ]; then
		ok top-vs-perf
	else
		not_ok top-vs-perf "perf's first entry: $pfirst" "pcl's: $first"
	fi
	# perf 6.1's default event where cycles cannot open: the header names it
	timeout -s INT 2.5 script -qc "perf top --stdio -d 1 -p $WPID" /dev/null </dev/null \
		>"$TMP/perf-def.out" 2>&1
	top_run def 2.5 --stdio -d 1 -p "$WPID"
	pev=$(screens "$TMP/perf-def.out" | tail -1 | cut -f2 | sed -E 's/.*\[[0-9]+Hz ([^]]*)\].*/\1/')
	cev=$(screens "$TMP/def.out" | tail -1 | cut -f2 | sed -E 's/.*\[[0-9]+Hz ([^]]*)\].*/\1/')
	if [ -n "$pev" ] && [ "$pev" = "$cev" ]; then
		ok top-default-event
	else
		not_ok top-default-event "perf's header names '$pev', pcl's '$cev'"
	fi
else
	skip top-vs-perf "no perf or no script(1) for its terminal"
	skip top-default-event "no perf or no script(1) for its terminal"
fi

# ---- -E, -K, -U, -n ----
top_run entries 2.5 --stdio -e cpu-clock -d 1 -E 2 -p "$WPID"
most=$(screens "$TMP/entries.out" | cut -f3 | awk -F'|' '{ n = ($0 == "" ? 0 : NF); if (n > m) m = n } END { print m + 0 }')
if [ "$RC" -eq 0 ] && [ "$most" -eq 2 ]; then
	ok top-entries
else
	not_ok top-entries "exit $RC; at most $most entries per screen (want 2 with -E 2)" \
		"$(show "$TMP/entries.out" 20)"
fi
top_run hidek 2.5 --stdio -e cpu-clock -d 1 -K -p "$WPID"
top_run hideu 2.5 --stdio -e cpu-clock -d 1 -U -p "$WPID"
if [ "$RC" -eq 0 ] && ! screens "$TMP/hidek.out" | cut -f3 | tr '|' '\n' | grep -q ' k ' &&
	screens "$TMP/hidek.out" | cut -f3 | tr '|' '\n' | grep -q ' \. hot_leaf$' &&
	! screens "$TMP/hideu.out" | cut -f3 | tr '|' '\n' | grep -q ' \. '; then
	ok top-hide-kernel-user
else
	not_ok top-hide-kernel-user "-K must show no [k] entry (and hot_leaf), -U no [.] entry" \
		"-K:" "$(last_entries "$TMP/hidek.out")" "-U:" "$(last_entries "$TMP/hideu.out")"
fi
top_run nr 2.5 --stdio -e cpu-clock -d 1 -n -E 3 -p "$WPID"
if grep -qE "^ +[0-9.]+% +[0-9]+  $HOTNAME +\[\.\] hot_leaf" "$TMP/nr.out"; then
	ok top-show-nr-samples
else
	not_ok top-show-nr-samples "want 'PCT  SAMPLES  DSO  [.] hot_leaf'" "$(show "$TMP/nr.out" 12)"
fi

# ---- -g: children and self, and the callers of hot_leaf ----
top_run graph 3.5 --stdio -e cpu-clock -d 1 -g -E 10 -p "$WPID"
block=$(perl -e 'local $/; $_ = <>; s/\e\[[0-9;]*m//g; my @s = split /\e\[H\e\[2J\n/; my $s = $s[-1];
	print $1 if $s =~ /(^ +[0-9.]+% +[0-9.]+% +\S+ +\[\.\] hot_leaf\n(?:.*\n)*?)\n/m' "$TMP/graph.out")
if [ "$RC" -eq 0 ] && echo "$block" | grep -q -- '--.*main' && echo "$block" | grep -q 'outer' &&
	echo "$block" | grep -q 'middle'; then
	ok top-callgraph
else
	not_ok top-callgraph "want hot_leaf with Children and Self and its callers main, outer, middle" \
		"$(show "$TMP/graph.out" 40)"
fi

# ---- decay (perf top's default) against -z ----
# phase_one for 2.5 s, then phase_two: 3.5 s later a decayed listing still
# shows phase_one, shrinking at each refresh; a zeroed one no longer does
"$PHASES" 2500 8000 &
P1=$!
"$PHASES" 2500 8000 &
P2=$!
top_run decay 6 --stdio -e cpu-clock -d 1 -n -p "$P1" &
D=$!
top_run zero 6 --stdio -e cpu-clock -d 1 -z -p "$P2"
wait "$D"
kill "$P1" "$P2" 2>/dev/null
# (-n: "PCT SAMPLES DSO [.] SYM"; the sample counts of phase_one, which no
# longer runs, must be perf's decay exactly: each floor(7/8 of the last))
nr_one=$(perl -ne 's/\e\[[0-9;]*m//g; print "$1\n" if /^\s+[0-9.]+%\s+(\d+)\s+\S+\s+\[\.\]\s+phase_one\s*$/' \
	"$TMP/decay.out" | tail -3)
one=$(perl -ne 's/\e\[[0-9;]*m//g; print "$1\n" if /^\s+([0-9.]+)%\s+\d+\s+\S+\s+\[\.\]\s+phase_one\s*$/' \
	"$TMP/decay.out" | tail -3)
exact=$(echo "$nr_one" | awk 'NR > 1 && $1 != int(prev * 7 / 8) { bad = 1 } { prev = $1 } END { print bad ? "no" : "yes" }')
if grep -qE '\[\.\] +phase_two' "$TMP/decay.out" && [ "$(echo "$one" | wc -l)" -eq 3 ] &&
	[ "$(echo "$one" | sort -rn)" = "$one" ] && [ "$exact" = yes ]; then
	ok top-decay
else
	not_ok top-decay "want phase_one still listed, shrinking by 7/8 (its samples), after phase_two began;" \
		"phase_one's last shares:" "$one" "and samples:" "$nr_one" "$(show "$TMP/decay.out" 20)"
fi
if last_entries "$TMP/zero.out" | grep -q ' phase_two$' && ! last_entries "$TMP/zero.out" | grep -q ' phase_one$'; then
	ok top-zero
else
	not_ok top-zero "want phase_two and no phase_one on the last screen with -z:" \
		"$(last_entries "$TMP/zero.out")"
fi

# ---- without a terminal, without --stdio: the listing all the same (perf's fallback) ----
top_run notty 2.5 -e cpu-clock -d 1 -p "$WPID"
if [ "$RC" -eq 0 ] && [ "$(screens "$TMP/notty.out" | wc -l)" -ge 2 ]; then
	ok top-no-tty-stdio
else
	not_ok top-no-tty-stdio "exit $RC" "$(show "$TMP/notty.out")" "$(show "$TMP/notty.err")"
fi

# ---- bad input: a clear error, a non-zero exit, never a crash ----
gone=999999
while [ -e /proc/$gone ]; do gone=$((gone - 1)); done
run nopid "$PCL" top --stdio -p $gone
if [ "$RC" -ne 0 ] && ! crashed "$TMP/nopid.err" "$RC" && grep -q "'$gone' not found" "$TMP/nopid.err"; then
	ok top-no-such-pid
else
	not_ok top-no-such-pid "exit $RC (want non-zero, '$gone' not found)" "$(show "$TMP/nopid.err")"
fi
run unsup "$PCL" top --dsos libc.so.6
run unknown "$PCL" top --no-such-option
run cmd "$PCL" top ls
if [ "$RC" -eq 2 ] && grep -q "runs no command" "$TMP/cmd.err" &&
	grep -q "'--dsos' of perf top is not supported by pcl top" "$TMP/unsup.err" &&
	grep -q "unknown option '--no-such-option'" "$TMP/unknown.err"; then
	ok top-refused-options
else
	not_ok top-refused-options "$(cat "$TMP/unsup.err" "$TMP/unknown.err" "$TMP/cmd.err")"
fi
run badg "$PCL" top --call-graph dwarf
run bade "$PCL" top -e no-such-event
run badd "$PCL" top -d 0
if [ "$RC" -eq 2 ] && grep -q "dwarf is not supported by pcl top" "$TMP/badg.err" &&
	grep -qi "no-such-event" "$TMP/bade.err" && grep -q "bad -d" "$TMP/badd.err"; then
	ok top-bad-values
else
	not_ok top-bad-values "$(cat "$TMP/badg.err" "$TMP/bade.err" "$TMP/badd.err")"
fi
