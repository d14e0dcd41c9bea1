#!/usr/bin/env bash
# pcl stat and pcl list against perf 6.1, for what scripts written for perf
# use: list --raw-dump (byte for byte), metrics and metric groups (names,
# groups and formulas; descriptions are pcl's own), stat -M on this machine
# (whose metric events cannot be counted: <not supported> with the metric
# named), named hardware events, --metric-only, --per-node and --per-die in
# the three formats, --interval-count, --summary and --no-csv-summary, and
# stat report's 'pipe' title.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip stat-perf13 "perf is not installed"
	exit 0
fi
if [ ! -x "$PCL" ]; then
	not_ok stat-perf13-pcl-built "no executable at $PCL"
	exit 0
fi
export LC_ALL=C

# --- list --raw-dump: byte for byte ------------------------------------------
for k in hw sw cache pmu tracepoint metrics metricgroups; do
	"$PCL" list --raw-dump $k >"$TMP/raw.$k.pcl" 2>"$TMP/raw.$k.pcl.err"
	perf list --raw-dump $k >"$TMP/raw.$k.perf" 2>/dev/null
	if [ $k = tracepoint ] || [ $k = metrics ] || [ $k = metricgroups ] || [ $k = sw ]; then
		# these must not be empty on this machine, or the comparison proves nothing
		if [ ! -s "$TMP/raw.$k.perf" ]; then
			skip "list-raw-dump-$k" "perf list --raw-dump $k prints nothing here"
			continue
		fi
	fi
	diff_or_ok "list-raw-dump-$k" "$TMP/raw.$k.perf" "$TMP/raw.$k.pcl" "perf list --raw-dump $k" "pcl list --raw-dump $k"
done

# the whole dump: the same, but for the SDT probes perf finds in its build-id cache
"$PCL" list --raw-dump >"$TMP/raw.all.pcl" 2>/dev/null
perf list --raw-dump 2>/dev/null | sed 's/sdt_[^ ]* //g' >"$TMP/raw.all.perf"
diff_or_ok list-raw-dump-all "$TMP/raw.all.perf" "$TMP/raw.all.pcl" "perf list --raw-dump (without sdt_ probes)" "pcl list --raw-dump"

# --- metrics: the same names, groups and formulas as perf ----------------------
HAVE_METRICS=0
[ -s "$TMP/raw.metrics.perf" ] && HAVE_METRICS=1
if [ $HAVE_METRICS = 1 ]; then
	# "  name" lines, then "       [desc]" and (--details) "       [formula]"
	perf list --details metrics 2>/dev/null | awk '/^  [^ ]/ { n = $1; k = 0; next } /^       \[/ { if (++k == 2) print n, $0 }' >"$TMP/formulas.perf"
	"$PCL" list --details metrics 2>/dev/null | awk '/^  [^ ]/ { n = $1; k = 0; next } /^       \[/ { if (++k == 2) print n, $0 }' >"$TMP/formulas.pcl"
	if [ "$(wc -l <"$TMP/formulas.perf")" -lt 1 ]; then
		not_ok list-metric-formulas "no formulas parsed from perf list --details metrics:" "$(perf list --details metrics 2>&1 | head)"
	else
		diff_or_ok list-metric-formulas "$TMP/formulas.perf" "$TMP/formulas.pcl" "perf list --details metrics (name formula)" "pcl list --details metrics"
	fi
	perf list metricgroups 2>/dev/null >"$TMP/groups.perf"
	"$PCL" list metricgroups 2>/dev/null >"$TMP/groups.pcl"
	diff_or_ok list-metricgroups "$TMP/groups.perf" "$TMP/groups.pcl" "perf list metricgroups" "pcl list metricgroups"
	# each group with its metrics, as perf list ends
	perf list 2>/dev/null | sed -n '/^Metric Groups:/,$p' | grep -v '^       \[' >"$TMP/all.perf"
	"$PCL" list 2>/dev/null | sed -n '/^Metric Groups:/,$p' | grep -v '^       \[' >"$TMP/all.pcl"
	diff_or_ok list-metrics-by-group "$TMP/all.perf" "$TMP/all.pcl" "perf list (metric groups, no descriptions)" "pcl list"
else
	skip list-metric-formulas "perf lists no metrics for this CPU"
fi

# --- a CPU pcl has no metrics for: says so, never guesses ------------------
run nocpu env PCL_CPUID=GenuineIntel-6-85 "$PCL" list --raw-dump metrics
if [ "$RC" -ne 0 ] || [ -s "$TMP/nocpu.out" ]; then
	not_ok list-metrics-unknown-cpu "PCL_CPUID=GenuineIntel-6-85 pcl list --raw-dump metrics: exit $RC, output:" "$(show "$TMP/nocpu.out")"
else
	ok list-metrics-unknown-cpu
fi
run nocpu2 env PCL_CPUID=GenuineIntel-6-85 "$PCL" list metrics
if [ "$RC" -ne 0 ] || ! grep -q 'no metrics for this CPU' "$TMP/nocpu2.err"; then
	not_ok list-metrics-unknown-cpu-note "pcl list metrics on an unknown CPU: exit $RC, stderr:" "$(show "$TMP/nocpu2.err")"
else
	ok list-metrics-unknown-cpu-note
fi
run nocpu3 env PCL_CPUID=GenuineIntel-6-85 "$PCL" stat -M branch_misprediction_ratio true
if [ "$RC" -eq 0 ] || crashed "$TMP/nocpu3.err" "$RC" || ! grep -q "no metrics for this CPU" "$TMP/nocpu3.err"; then
	not_ok stat-metric-unknown-cpu "pcl stat -M on an unknown CPU: exit $RC (want an error), stderr:" "$(show "$TMP/nocpu3.err")"
else
	ok stat-metric-unknown-cpu
fi

# --- stat -M: every metric, its name shown, its events <not supported> here ----
# (with a hardware PMU the events count and the metric shows a number)
HW=1
"$PCL" stat -x, -e cycles true 2>&1 | grep -q '<not supported>' && HW=0
if [ $HAVE_METRICS = 1 ]; then
	bad=0
	for m in $(cat "$TMP/raw.metrics.pcl"); do
		run "m.$m" "$PCL" stat -M "$m" true
		line=$(grep -F " $m" "$TMP/m.$m.err" | head -1)
		if [ "$RC" -ne 0 ] || [ -z "$line" ]; then
			not_ok "stat-metric-$m" "pcl stat -M $m true: exit $RC, no line naming the metric:" "$(show "$TMP/m.$m.err")"
			bad=1
		elif [ $HW = 0 ] && ! grep -q '<not supported>.*# <not supported> .*'"$m" <<<"$line"; then
			not_ok "stat-metric-$m" "no PMU here: want '<not supported> EVENT # <not supported> ... $m', got:" "$line"
			bad=1
		fi
	done
	[ $bad = 0 ] && ok stat-metric-each
	# a group: every metric of it, each named once
	run mg "$PCL" stat -M l2_cache -x, true
	got=$(awk -F, '$7 ~ /[a-z]/ { n++ } END { print n + 0 }' "$TMP/mg.err")
	nl2=$(perf list 2>/dev/null | sed -n '/^l2_cache:$/,/^[a-z_0-9]*:$/p' | grep -c '^  [a-z]')
	if [ "$RC" -ne 0 ] || [ "$got" != "$nl2" ]; then
		not_ok stat-metricgroup-csv "pcl stat -M l2_cache -x,: exit $RC, $got rows carry a metric (perf lists $nl2 in l2_cache):" "$(show "$TMP/mg.err" 20)"
	elif awk -F, 'NF != 7 { bad = 1 } END { exit !bad }' "$TMP/mg.err"; then
		not_ok stat-metricgroup-csv "a CSV row without the 7 fields of perf's -x layout:" "$(show "$TMP/mg.err" 20)"
	else
		ok stat-metricgroup-csv
	fi
	# -M all, and names in any case, as perf matches them
	run mall "$PCL" stat -x, -M all true
	nall=$(awk -F, '$7 != "" { n++ } END { print n + 0 }' "$TMP/mall.err")
	nraw=$(wc -w <"$TMP/raw.metrics.pcl")
	run mcase "$PCL" stat -x, -M TLB,Branch_Misprediction_Ratio true
	if [ "$nall" != "$nraw" ] || [ "$(awk -F, '$7 ~ /l1_itlb_misses|branch_misprediction_ratio/' "$TMP/mcase.err" | wc -l)" != 2 ]; then
		not_ok stat-metric-all-case "pcl stat -M all: $nall metric rows (want $nraw); -M TLB,Branch_Misprediction_Ratio:" "$(show "$TMP/mcase.err")"
	else
		ok stat-metric-all-case
	fi
	# shared events: counted once, or once per metric with --metric-no-merge
	run mshare "$PCL" stat -x, -M all_l2_cache_hits,all_l2_cache_accesses true
	run mnomerge "$PCL" stat -x, --metric-no-merge --metric-no-group -M all_l2_cache_hits,all_l2_cache_accesses true
	a=$(grep -c ',l2_pf_hit_l2,' "$TMP/mshare.err")
	b=$(grep -c ',l2_pf_hit_l2,' "$TMP/mnomerge.err")
	if [ "$a" != 1 ] || [ "$b" != 2 ]; then
		not_ok stat-metric-no-merge "l2_pf_hit_l2 (in both metrics) rows: $a shared (want 1), $b with --metric-no-merge (want 2)" "$(show "$TMP/mnomerge.err")"
	else
		ok stat-metric-no-merge
	fi
	run mj "$PCL" stat -j -M branch_misprediction_ratio true
	if [ "$RC" -ne 0 ] || ! json_lines "$TMP/mj.err" || ! grep -q '"metric-unit" : "[^"]*branch_misprediction_ratio"' "$TMP/mj.err"; then
		not_ok stat-metric-json "pcl stat -j -M branch_misprediction_ratio: exit $RC, want JSON lines naming the metric:" "$(show "$TMP/mj.err")"
	else
		ok stat-metric-json
	fi
	# --metric-only: a header of metric names, a row of values
	run mo "$PCL" stat --metric-only -e task-clock -M branch_misprediction_ratio true
	if [ "$RC" -ne 0 ] || ! grep -q 'CPUs utilized.*branch_misprediction_ratio' "$TMP/mo.err" ||
		{ [ $HW = 0 ] && ! grep -qE '^ +[0-9.]+ +<not supported>$' "$TMP/mo.err"; }; then
		not_ok stat-metric-only "pcl stat --metric-only -e task-clock -M branch_misprediction_ratio:" "$(show "$TMP/mo.err")"
	else
		ok stat-metric-only
	fi
	run moj "$PCL" stat --metric-only -j -e task-clock -M branch_misprediction_ratio true
	if [ "$RC" -ne 0 ] || ! json_lines "$TMP/moj.err" || ! grep -q '"CPUs utilized" : "[0-9.]*", "%  branch_misprediction_ratio" : ' "$TMP/moj.err"; then
		not_ok stat-metric-only-json "pcl stat --metric-only -j:" "$(show "$TMP/moj.err")"
	else
		ok stat-metric-only-json
	fi
	run mox "$PCL" stat --metric-only -x, -e task-clock,page-faults true
	if [ "$RC" -ne 0 ] || [ "$(sed -n 1p "$TMP/mox.err" | cut -d, -f1)" != "CPUs utilized" ] ||
		! sed -n 2p "$TMP/mox.err" | grep -qE '^[0-9.]+,[0-9.]+( /sec)?,$'; then
		not_ok stat-metric-only-csv "pcl stat --metric-only -x, -e task-clock,page-faults:" "$(show "$TMP/mox.err")"
	else
		ok stat-metric-only-csv
	fi
fi

# --- named hardware events (libpfm4) -------------------------------------------
if [ $HAVE_METRICS = 1 ]; then
	run named "$PCL" stat -x, -e l2_pf_hit_l2,ic_tag_hit_miss.instruction_cache_miss,xi_sys_fill_latency,task-clock true
	if [ "$RC" -ne 0 ] || [ "$(awk -F, '$3 == "l2_pf_hit_l2" || $3 == "ic_tag_hit_miss.instruction_cache_miss" || $3 == "xi_sys_fill_latency" { n++ } END { print n + 0 }' "$TMP/named.err")" != 3 ]; then
		not_ok stat-named-events "pcl stat -e l2_pf_hit_l2,...: exit $RC, want a row for each:" "$(show "$TMP/named.err")"
	elif [ $HW = 0 ] && [ "$(grep -c '^<not supported>,,' "$TMP/named.err")" != 3 ]; then
		not_ok stat-named-events "no PMU here: want the three named events <not supported>:" "$(show "$TMP/named.err")"
	else
		ok stat-named-events
	fi
fi

# --- --per-node and --per-die against perf, three formats -------------------
EV=cpu-clock,page-faults
for mode in --per-node --per-die; do
	m=${mode#--}
	run "$m.pcl" "$PCL" stat -a $mode -e $EV sleep 0.1
	PRC=$RC
	run "$m.perf" perf stat -a $mode -e $EV sleep 0.1
	if [ $PRC -ne 0 ] || [ $RC -ne 0 ]; then
		not_ok "stat$mode" "exit pcl $PRC perf $RC:" "$(show "$TMP/$m.pcl.err")" "$(show "$TMP/$m.perf.err")"
		continue
	fi
	grep -E '^(N|S)[0-9]' "$TMP/$m.pcl.err" | unscale | norm_layout >"$TMP/$m.pcl.l"
	grep -E '^(N|S)[0-9]' "$TMP/$m.perf.err" | unscale | norm_layout >"$TMP/$m.perf.l"
	if [ ! -s "$TMP/$m.perf.l" ]; then
		not_ok "stat$mode-layout" "no $mode rows in perf's output:" "$(show "$TMP/$m.perf.err")"
	else
		diff_or_ok "stat$mode-layout" "$TMP/$m.perf.l" "$TMP/$m.pcl.l" "perf stat -a $mode (numbers as ~)" "pcl stat -a $mode"
	fi
	run "$m.cpcl" "$PCL" stat -x, -a $mode -e $EV sleep 0.1
	run "$m.cperf" perf stat -x, -a $mode -e $EV sleep 0.1
	unscale <"$TMP/$m.cpcl.err" | norm_words >"$TMP/$m.cpcl.w"
	unscale <"$TMP/$m.cperf.err" | norm_words >"$TMP/$m.cperf.w"
	diff_or_ok "stat$mode-csv" "$TMP/$m.cperf.w" "$TMP/$m.cpcl.w" "perf stat -x, -a $mode (numbers as N)" "pcl stat -x, -a $mode"
	run "$m.jpcl" "$PCL" stat -j -a $mode -e $EV sleep 0.1
	run "$m.jperf" perf stat -j -a $mode -e $EV sleep 0.1
	unscale <"$TMP/$m.jpcl.err" | norm_words >"$TMP/$m.jpcl.w"
	unnull <"$TMP/$m.jperf.err" | unscale | norm_words >"$TMP/$m.jperf.w"
	diff_or_ok "stat$mode-json" "$TMP/$m.jperf.w" "$TMP/$m.jpcl.w" "perf stat -j -a $mode (numbers as N)" "pcl stat -j -a $mode"
	# with intervals: perf's header line and prefix
	run "$m.ipcl" "$PCL" stat -I 100 --interval-count 1 -a $mode -e cpu-clock
	run "$m.iperf" perf stat -I 100 --interval-count 1 -a $mode -e cpu-clock
	norm_layout <"$TMP/$m.ipcl.err" >"$TMP/$m.ipcl.l"
	norm_layout <"$TMP/$m.iperf.err" >"$TMP/$m.iperf.l"
	diff_or_ok "stat$mode-interval" "$TMP/$m.iperf.l" "$TMP/$m.ipcl.l" "perf stat -I 100 --interval-count 1 -a $mode" "pcl stat ..."
done

# --- --interval-count, --summary, --no-csv-summary -------------------------------
run ic "$PCL" stat -x, -I 100 --interval-count 3 -a -e cpu-clock
n=$(grep -c ',cpu-clock,' "$TMP/ic.err")
if [ "$RC" -ne 0 ] || [ "$n" != 3 ]; then
	not_ok stat-interval-count "pcl stat -I 100 --interval-count 3 -a: exit $RC, $n intervals (want 3):" "$(show "$TMP/ic.err")"
else
	ok stat-interval-count
fi
# with a command: N intervals, then the command runs to its end (perf does the same)
start=$(date +%s%N)
run icw "$PCL" stat -x, -I 100 --interval-count 2 -e task-clock -- sleep 0.6
el=$(( ($(date +%s%N) - start) / 1000000 ))
n=$(grep -c ',task-clock,' "$TMP/icw.err")
if [ "$RC" -ne 0 ] || [ "$n" != 2 ] || [ "$el" -lt 550 ]; then
	not_ok stat-interval-count-command "pcl stat -I 100 --interval-count 2 -- sleep 0.6: exit $RC, $n intervals (want 2), ${el} ms (want the command's 600):" "$(show "$TMP/icw.err")"
else
	ok stat-interval-count-command
fi
for v in "" --no-csv-summary; do
	tag=sum${v:+-nocsv}
	run "$tag.pcl" "$PCL" stat -x, -I 100 --interval-count 2 --summary $v -e task-clock -- sleep 0.3
	run "$tag.perf" perf stat -x, -I 100 --interval-count 2 --summary $v -e task-clock -- sleep 0.3
	norm_words <"$TMP/$tag.pcl.err" >"$TMP/$tag.pcl.w"
	norm_words <"$TMP/$tag.perf.err" >"$TMP/$tag.perf.w"
	if ! grep -q task-clock "$TMP/$tag.perf.w"; then
		not_ok "stat-summary$v" "perf printed no task-clock row:" "$(show "$TMP/$tag.perf.err")"
	else
		diff_or_ok "stat-summary$v" "$TMP/$tag.perf.w" "$TMP/$tag.pcl.w" "perf stat -x, -I 100 --interval-count 2 --summary $v (numbers as N)" "pcl stat ..."
	fi
done
if ! grep -q '^ *summary,' "$TMP/sum.pcl.err" || grep -q summary "$TMP/sum-nocsv.pcl.err"; then
	not_ok stat-summary-column "want a 'summary' column with --summary and none with --no-csv-summary:" "$(show "$TMP/sum.pcl.err")" "$(show "$TMP/sum-nocsv.pcl.err")"
else
	ok stat-summary-column
fi
# --interval-count 0: no end, as perf takes it (the intervals until the command ends)
run ic0 "$PCL" stat -x, -I 100 --interval-count 0 -e task-clock -- sleep 0.35
n=$(grep -c ',task-clock,' "$TMP/ic0.err")
if [ "$RC" -ne 0 ] || [ "$n" -lt 2 ]; then
	not_ok stat-interval-count-0 "pcl stat -I 100 --interval-count 0 -- sleep 0.35: exit $RC, $n intervals (want 3, perf's no limit):" "$(show "$TMP/ic0.err")"
else
	ok stat-interval-count-0
fi
# --summary after --interval-count totals what the intervals showed (perf
# keeps the counts of the last interval), not the command's whole run
sumwl=$(workload hot) || sumwl=
if [ -n "$sumwl" ]; then
	for by in perf pcl; do
		cmd=$PCL
		[ $by = perf ] && cmd=perf
		run "sumtot.$by" "$cmd" stat -x, -I 100 --interval-count 2 --summary -e task-clock -- "$sumwl" 600
		awk -F, '$4 == "task-clock" { if ($1 ~ /summary/) s = $5; else t += $5 }
			END { if (!s) print "no summary"; else if (s != t) print "summary " s " != intervals " t }' \
			"$TMP/sumtot.$by.err" >"$TMP/sumtot.$by.bad"
	done
	if [ -s "$TMP/sumtot.perf.bad" ]; then
		skip stat-summary-total "perf's summary is not the intervals' total here: $(cat "$TMP/sumtot.perf.bad")"
	elif [ -s "$TMP/sumtot.pcl.bad" ]; then
		not_ok stat-summary-total "pcl stat -I 100 --interval-count 2 --summary -- hot 600: $(cat "$TMP/sumtot.pcl.bad") (perf's are equal):" "$(show "$TMP/sumtot.pcl.err")"
	else
		ok stat-summary-total
	fi
fi
run icbad "$PCL" stat --interval-count 2 true
if [ "$RC" -ne 2 ] || ! grep -q -- '--interval-count needs -I' "$TMP/icbad.err"; then
	not_ok stat-interval-count-needs-I "pcl stat --interval-count 2 true: exit $RC (want 2), stderr:" "$(show "$TMP/icbad.err")"
else
	ok stat-interval-count-needs-I
fi

# --- stat report -i -: titled 'pipe', from pcl's and from perf's stream ---------
"$PCL" stat record -o - -e task-clock true 2>/dev/null | "$PCL" stat report -i - >"$TMP/pipe1" 2>&1
perf stat record -o - -e task-clock true 2>/dev/null | "$PCL" stat report -i - >"$TMP/pipe2" 2>&1
perf stat record -o - -e task-clock true 2>/dev/null | perf stat report -i - >"$TMP/pipe3" 2>&1
if ! grep -q "Performance counter stats for 'pipe':" "$TMP/pipe3"; then
	skip stat-report-pipe-title "perf stat report -i - does not say 'pipe' here"
elif ! grep -q "Performance counter stats for 'pipe':" "$TMP/pipe1" ||
	! grep -q "Performance counter stats for 'pipe':" "$TMP/pipe2"; then
	not_ok stat-report-pipe-title "pcl stat report -i - (pcl's stream, then perf's):" "$(show "$TMP/pipe1")" "$(show "$TMP/pipe2")"
else
	ok stat-report-pipe-title
fi

# --- stat record -o -: the counts go down the pipe only, as perf prints none -----
# (perf's stat.sh runs 'perf stat record -o - true | perf stat report -i -'
# on a terminal: pcl printed the counts twice there)
perf stat record -o - -e task-clock true 2>"$TMP/pq.perf" >/dev/null
"$PCL" stat record -o - -e task-clock true 2>"$TMP/pq.pcl" >/dev/null
"$PCL" stat record -o - -I 100 -e task-clock sleep 0.25 2>"$TMP/pqi.pcl" >/dev/null
if grep -q "Performance counter stats" "$TMP/pq.perf"; then
	skip stat-record-pipe-quiet "perf stat record -o - prints its counts here"
elif grep -q "task-clock" "$TMP/pq.pcl" "$TMP/pqi.pcl"; then
	not_ok stat-record-pipe-quiet "pcl stat record -o - printed counts on stderr (perf prints none):" "$(show "$TMP/pq.pcl")" "$(show "$TMP/pqi.pcl")"
else
	ok stat-record-pipe-quiet
fi

# --- per-die / per-node in stat files: perf reads pcl's, pcl reads perf's -------
"$PCL" stat record -o "$TMP/die.data" -a --per-die -e cpu-clock sleep 0.1 2>/dev/null
perf stat report -i "$TMP/die.data" >"$TMP/die.rep" 2>&1
perf stat record -o "$TMP/node.data" -a --per-node -e cpu-clock sleep 0.1 2>/dev/null
"$PCL" stat report -i "$TMP/node.data" >"$TMP/node.rep" 2>&1
if ! grep -qE '^S[0-9]+-D[0-9]+ +[0-9]+ +[0-9.]+ msec cpu-clock' "$TMP/die.rep" ||
	! grep -qE '^N[0-9]+ +[0-9]+ +[0-9.]+ msec cpu-clock' "$TMP/node.rep"; then
	not_ok stat-record-per-die-node "perf stat report of pcl's --per-die file, pcl stat report of perf's --per-node file:" "$(show "$TMP/die.rep")" "$(show "$TMP/node.rep")"
else
	ok stat-record-per-die-node
fi
