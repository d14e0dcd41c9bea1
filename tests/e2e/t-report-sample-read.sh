#!/usr/bin/env bash
# pcl report on samples that carry PERF_SAMPLE_READ ({a,b}:S): each value
# read counts as a sample of its event with the value's growth as period,
# as perf does. On perf's group file (the leader samples, the member only
# in the leader's reads) the report, --group too, must be perf's. On a file
# whose counters are inherited (pcl record's '{a,b}:S' on a forking
# workload), perf 6.1 subtracts one thread's count from another's and
# prints wrapped percentages; pcl follows each thread (as perf 6.12+), says
# so once with the number of samples, and its event counts must be the
# per-thread growth summed from the reads that perf report -D prints;
# pcl script prints perf 6.1's periods and counts the wrapped ones once.
# Samples with no period field (perf record -c N) weigh N, as in perf.
# pcl record writes groups as perf does, and perf reads them as pcl does.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-sample-read "perf is not installed"
	exit 0
fi
command -v perl >/dev/null 2>&1 || { skip report-sample-read "perl is not installed (the comparison is in perl)"; exit 0; }
. "$(dirname "$0")/report-lib.sh"
hot=$(workload hot) || { not_ok report-sample-read-workload "cannot build tests/workloads/hot.c"; exit 0; }
forks=$(workload forks) || { not_ok report-sample-read-workload "cannot build tests/workloads/forks.c"; exit 0; }

# perf's group with leader sampling
if record_to report-sample-read perf grp --no-bpf-event -e '{task-clock,cpu-clock}:S' \
	-o "$TMP/grp.data" -- "$hot" 300; then
	report_pair grp "$TMP/grp.data" --no-children
	compare report-sample-read-grp grp "rows header text" "--stdio --no-children -i grp.data"
	report_pair grp-group "$TMP/grp.data" --no-children --group
	compare report-sample-read-grp-group grp-group "rows header text" \
		"--stdio --no-children --group -i grp.data"
fi

# inherited counters with PERF_SAMPLE_READ
if record_to report-sample-read pcl inh -e '{task-clock,cpu-clock}:S' -o "$TMP/inh.data" \
	-- "$forks" 4 150; then
	F=$TMP/inh.data
	if ! perf report --header-only -i "$F" 2>/dev/null | grep '^# event' | grep -q 'READ.*inherit = 1'; then
		skip report-sample-read-inherit "pcl record's '{a,b}:S' no longer writes inherited counters with READ"
	else
		# (one event per section: the file has the group, shown as one by default)
		run_long inh.pcl 60 "$PCL" report --stdio --no-children --no-group -i "$F"
		nr=$(perf report --stats -i "$F" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
		# the per-thread growth of each event: the last (largest) value of each (id, tid)
		perf report -D -i "$F" 2>/dev/null | perl -e '
			my (%ev, %last, $tid);
			open(my $h, "-|", "perf", "report", "--header-only", "-i", $ARGV[0]) or die;
			while (<$h>) {
				next unless /^# event : name = ([^,]+),.*?id = \{ ([^}]*) \}/;
				my $n = $1;
				$ev{$_} = $n for map { s/\s//gr } split /,/, $2;
			}
			while (<STDIN>) {
				$tid = $1 if /PERF_RECORD_SAMPLE\(.*?: \d+\/(\d+):/;
				# the largest: the file is in CPU buffer order, not time order
				if (/^\.+ id ([0-9a-f]+), value ([0-9a-f]+)/ && defined $ev{hex $1}) {
					my $k = hex($1) . " " . $tid;
					$last{$k} = hex $2 if !defined $last{$k} || hex $2 > $last{$k};
				}
			}
			my %sum;
			for (keys %last) { my ($id) = split / /; $sum{$ev{$id}} += $last{$_} }
			print "$_ $sum{$_}\n" for sort keys %sum;' "$F" >"$TMP/inh.want"
		awk '/^# Samples: .* of events? / { e = $NF; gsub(/'\''/, "", e) }
			/^# Event count/ { print e, $NF }' "$TMP/inh.pcl.out" | sort >"$TMP/inh.got"
		if [ "$RC" -ne 0 ] || crashed "$TMP/inh.pcl.err" "$RC"; then
			not_ok report-sample-read-inherit "pcl report: exit $RC" "$(show "$TMP/inh.pcl.err")"
		elif ! grep -q "^pcl: warning: $nr samples of inherited counters with PERF_SAMPLE_READ" \
			"$TMP/inh.pcl.err"; then
			not_ok report-sample-read-inherit "pcl report: no warning with the $nr samples; stderr:" \
				"$(show "$TMP/inh.pcl.err")"
		elif [ "$(grep -c 'inherited counters' "$TMP/inh.pcl.err")" -ne 1 ]; then
			not_ok report-sample-read-inherit "pcl report: the warning more than once" "$(show "$TMP/inh.pcl.err")"
		elif awk '/^ +[0-9.]+%/ { if ($1 + 0 > 100) bad = 1 } END { exit !bad }' "$TMP/inh.pcl.out"; then
			not_ok report-sample-read-inherit "pcl report: an overhead above 100%" "$(show "$TMP/inh.pcl.out" 20)"
		elif [ ! -s "$TMP/inh.want" ]; then
			not_ok report-sample-read-inherit "oracle: perf report -D shows no read values" "$(show "$TMP/inh.want")"
		else
			diff_or_ok report-sample-read-inherit "$TMP/inh.want" "$TMP/inh.got" "per-thread growth (perf report -D)" "pcl report's event counts"
		fi
		# pcl script keeps perf 6.1's periods, line for line, and counts the wrapped ones once
		run inh.pscript perf script -F tid,event,period -i "$F"
		run inh.cscript "$PCL" script -F tid,event,period -i "$F"
		wrapped=$(perl -ne '@f = split; my $l = length $f[1]; print "$f[1]\n" if $l > 19 || ($l == 19 && $f[1] ge "9223372036854775808")' \
			"$TMP/inh.cscript.out" | wc -l)
		if ! cmp -s "$TMP/inh.pscript.out" "$TMP/inh.cscript.out"; then
			diff_or_ok report-sample-read-script-periods "$TMP/inh.pscript.out" "$TMP/inh.cscript.out" "perf script -F tid,event,period" "pcl script ..."
		elif [ "$wrapped" -eq 0 ]; then
			skip report-sample-read-script-periods "no period wrapped in this run (the threads never shared a CPU's id)"
		elif [ "$(grep -c "^pcl: warning: $wrapped periods\? of PERF_SAMPLE_READ values went below zero" "$TMP/inh.cscript.err")" -ne 1 ]; then
			not_ok report-sample-read-script-periods "pcl script: want one warning counting the $wrapped wrapped periods; stderr:" "$(show "$TMP/inh.cscript.err")"
		else
			ok report-sample-read-script-periods
		fi
	fi
fi

# A fixed period (perf record -c N) leaves PERF_SAMPLE_PERIOD out of the
# samples: each weighs N, as perf reads them (pcl once counted them as 0).
if record_to report-sample-read perf fixed --no-bpf-event -e task-clock -c 100000 \
	-o "$TMP/fixed.data" -- "$hot" 200; then
	if perf evlist -v -i "$TMP/fixed.data" 2>/dev/null | grep -q 'sample_type:[^,]*PERIOD'; then
		skip report-sample-read-fixed-period "this perf wrote PERF_SAMPLE_PERIOD with -c"
	else
		report_pair fixed "$TMP/fixed.data" --no-children
		compare report-sample-read-fixed-period fixed "rows header" "--stdio --no-children -i fixed.data"
	fi
fi

# pcl record writes event groups as perf does: GROUP_DESC ('# group:' in
# the header), and with :S the group read in the leader's samples, the
# members not sampling. The attrs' bits that say so are perf's own (perf
# record of the same events); perf reads pcl's file as pcl does.
# (Masked: ID/IDENTIFIER, pcl's choice for several events; inherit, which
# perf 6.1 clears for :S and pcl keeps, as perf 6.12+; and the fields that
# differ for any event: watermark, wakeup, ksymbol, bpf_event.)
attr_bits() {
	perf evlist -v -i "$1" 2>/dev/null | perl -ne '
		s/, \{ wakeup_events, wakeup_watermark \}: \d+//;
		my ($n, $rest) = /^([^:]+): (.*)$/ or next;
		my @f = grep { !/^(inherit|watermark|ksymbol|bpf_event|\{ wakeup_events)/ } split /, /, $rest;
		for (@f) { s/\|?\b(IDENTIFIER|ID)\b//g; s/: \|/: /; }
		print "$n: ", join(", ", @f), "\n";'
	perf report --header-only -i "$1" 2>/dev/null | grep '^# group:'
}
grp_ev='{task-clock,cpu-clock}:S,{page-faults,minor-faults}'
if has_record && record_to report-sample-read perf pgrp --no-bpf-event -e "$grp_ev" \
	-o "$TMP/pgrp.data" -- "$hot" 200 &&
	record_to report-sample-read pcl cgrp -e "$grp_ev" -o "$TMP/cgrp.data" -- "$hot" 200; then
	attr_bits "$TMP/pgrp.data" >"$TMP/pgrp.bits"
	attr_bits "$TMP/cgrp.data" >"$TMP/cgrp.bits"
	if [ "$(grep -c '^# group:' "$TMP/pgrp.bits")" -ne 2 ]; then
		not_ok report-sample-read-record-groups "oracle: perf's file shows no two groups:" "$(show "$TMP/pgrp.bits")"
	else
		diff_or_ok report-sample-read-record-groups "$TMP/pgrp.bits" "$TMP/cgrp.bits" \
			"perf record -e '$grp_ev' (attrs, groups)" "pcl record ..."
	fi
	run grpnote "$PCL" record -o "$TMP/grpnote.data" -e "$grp_ev" -- true
	if grep -q 'group' "$TMP/grpnote.err"; then
		not_ok report-sample-read-record-groups-quiet "pcl record notes about groups it now records:" \
			"$(show "$TMP/grpnote.err")"
	else
		ok report-sample-read-record-groups-quiet
	fi
	# perf reads pcl's groups as pcl does: report (--group too) and script
	report_pair cgrp "$TMP/cgrp.data" --no-children
	compare report-sample-read-pcl-grp cgrp "rows header text" "--stdio --no-children -i cgrp.data"
	report_pair cgrp-group "$TMP/cgrp.data" --no-children --group
	compare report-sample-read-pcl-grp-group cgrp-group "rows header text" \
		"--stdio --no-children --group -i cgrp.data"
	run cgrp.pscript perf script -F tid,event,ip,period -i "$TMP/cgrp.data"
	run cgrp.cscript "$PCL" script -F tid,event,ip,period -i "$TMP/cgrp.data"
	if ! grep -q 'cpu-clock' "$TMP/cgrp.pscript.out"; then
		not_ok report-sample-read-pcl-grp-script "oracle: perf script shows no member (cpu-clock) sample from the group read:" \
			"$(show "$TMP/cgrp.pscript.out" 10)"
	else
		diff_or_ok report-sample-read-pcl-grp-script "$TMP/cgrp.pscript.out" "$TMP/cgrp.cscript.out" \
			"perf script -F tid,event,ip,period" "pcl script ..."
	fi
fi

# Whole CPUs (-a): a CPU's counter counts whatever ran there, one value for
# every thread. perf 6.1 still sets inherit; pcl report must not follow its
# values per thread (which counted each thread's first value whole: 15
# times the truth), and pcl record leaves inherit out.
if record_to report-sample-read perf cpuwide --no-bpf-event -a -e cpu-clock:S -o "$TMP/cpuwide.data" -- "$forks" 2 100; then
	report_pair cpuwide "$TMP/cpuwide.data" --no-children --sort comm --comms forks
	compare report-sample-read-cpu-wide cpuwide "rows header" "--stdio --no-children --sort comm --comms forks -i cpuwide.data (perf record -a)"
	# perf inject writes its own command line: the samples' CPU field tells
	if perf inject -i "$TMP/cpuwide.data" -o "$TMP/cpuwide-inj.data" 2>/dev/null; then
		report_pair cpuwide-inj "$TMP/cpuwide-inj.data" --no-children --sort comm --comms forks
		compare report-sample-read-cpu-wide-inject cpuwide-inj "rows header" \
			"--stdio --no-children --sort comm --comms forks -i (perf inject of perf record -a)"
	else
		not_ok report-sample-read-cpu-wide-inject "oracle: perf inject failed"
	fi
fi
if has_record && record_to report-sample-read pcl cpuwide-pcl -a -e '{cpu-clock,page-faults}:S' \
	-o "$TMP/cpuwide-pcl.data" -- "$forks" 2 100; then
	if perf evlist -v -i "$TMP/cpuwide-pcl.data" 2>/dev/null | grep -q 'inherit: 1'; then
		not_ok report-sample-read-cpu-wide-record "pcl record -a: a :S event with inherit:" \
			"$(perf evlist -v -i "$TMP/cpuwide-pcl.data" 2>&1 | head -3)"
	else
		ok report-sample-read-cpu-wide-record
	fi
	# (the workload's rows: a process the recording missed the start of
	# shows as :PID in pcl until its exec names it, where perf renames its
	# earlier rows too)
	report_pair cpuwide-pcl "$TMP/cpuwide-pcl.data" --no-children --sort comm --comms forks
	compare report-sample-read-cpu-wide-pcl cpuwide-pcl "rows header" "--stdio --no-children --sort comm --comms forks -i cpuwide-pcl.data (pcl record -a)"
fi

# A member with a rate of its own (page-faults/period=7/) keeps sampling in
# a :S group, as perf applies an event's terms last.
if has_record && record_to report-sample-read perf ownrate --no-bpf-event -e '{cpu-clock,page-faults/period=7/}:S' \
	-o "$TMP/ownrate.data" -- "$hot" 100 &&
	record_to report-sample-read pcl ownrate-pcl -e '{cpu-clock,page-faults/period=7/}:S' \
		-o "$TMP/ownrate-pcl.data" -- "$hot" 100; then
	pp=$(perf evlist -v -i "$TMP/ownrate.data" 2>/dev/null | grep '^page-faults' | grep -o 'sample_period, sample_freq }: [0-9]*')
	cp=$(perf evlist -v -i "$TMP/ownrate-pcl.data" 2>/dev/null | grep '^page-faults' | grep -o 'sample_period, sample_freq }: [0-9]*')
	if [ -z "$pp" ]; then
		not_ok report-sample-read-member-own-rate "oracle: perf's member has no period of its own"
	elif [ "$pp" = "$cp" ]; then
		ok report-sample-read-member-own-rate
	else
		not_ok report-sample-read-member-own-rate "page-faults/period=7/ in a :S group: perf '$pp', pcl '${cp:-no period}'"
	fi
fi
