#!/usr/bin/env bash
# pcl stat against perf stat: the same commands, the same counts (exactly
# where the kernel makes them exact), and the same output layout with the
# numbers normalised away.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip stat-perf "perf is not installed"
	exit 0
fi
if [ ! -x "$PCL" ]; then
	not_ok stat-perf-pcl-built "no executable at $PCL"
	exit 0
fi

# both TAG ARGS...: "pcl stat ARGS" and "perf stat ARGS"; outputs in
# $TMP/TAG.pcl.{out,err} and $TMP/TAG.perf.{out,err}, statuses in PRC and FRC.
both() {
	local tag=$1
	shift
	run "$tag.pcl" "$PCL" stat "$@"
	PRC=$RC
	run "$tag.perf" perf stat "$@"
	FRC=$RC
}
# ran_ok NAME TAG: not ok (and false) if the pcl run of TAG failed or crashed.
ran_ok() {
	if [ "$PRC" -ne 0 ] || crashed "$TMP/$2.pcl.err" "$PRC"; then
		not_ok "$1" "pcl exited $PRC (perf exited $FRC); pcl stderr:" "$(show "$TMP/$2.pcl.err")"
		return 1
	fi
}
touch_pages=$(workload touch-pages)
spin=$(workload spin)
writes=$(workload writes)

# --- page faults of a workload touching N fresh pages -----------------------
N=2000
both pf -x, -e page-faults -- "$touch_pages" $N
if ran_ok stat-page-faults pf; then
	p=$(csv_count "$TMP/pf.pcl.err" page-faults)
	f=$(csv_count "$TMP/pf.perf.err" page-faults)
	if [ -n "$p" ] && [ -n "$f" ] && [ "$p" -ge $N ] 2>/dev/null && within "$p" "$f" 5; then
		ok stat-page-faults
	else
		not_ok stat-page-faults "touch-pages $N: pcl page-faults '$p', perf '$f'" \
			"want pcl >= $N and within 5% of perf" "pcl stderr:" "$(show "$TMP/pf.pcl.err")"
	fi
fi

# --- task-clock of a CPU-bound workload against user+sys time ---------------
# msec of task-clock, and user+sys from the footer, in msec: "TASK USYS"
clock_vs_rusage() {
	awk '$3 == "task-clock" && $2 == "msec" { gsub(/,/, "", $1); t = $1 }
		/seconds user$/ { u = $1 } /seconds sys$/ { s = $1 }
		END { printf "%s %s\n", t, (u + s) * 1000 }' "$1"
}
# The machine may be busy: the CPU time a 300 ms spin gets varies, but
# task-clock must track user+sys whatever it is.
both spin -e task-clock -- "$spin" 300
if ran_ok stat-task-clock-vs-rusage spin; then
	read -r pt pu <<<"$(clock_vs_rusage "$TMP/spin.pcl.err")"
	read -r ft fu <<<"$(clock_vs_rusage "$TMP/spin.perf.err")"
	if [ -n "$pt" ] && awk -v t="$pt" 'BEGIN { exit !(t >= 30) }' && within "$pt" "$pu" 10; then
		ok stat-task-clock-vs-rusage
	else
		not_ok stat-task-clock-vs-rusage "spin 300: pcl task-clock '$pt' msec, pcl user+sys '$pu' msec" \
			"(perf: task-clock '$ft' msec, user+sys '$fu' msec); want >= 30 and within 10%" \
			"pcl stderr:" "$(show "$TMP/spin.pcl.err")"
	fi
	# perf's task-clock/(user+sys) ratio is the reference for pcl's.
	pr=$(awk -v t="$pt" -v u="$pu" 'BEGIN { if (u > 0) printf "%.3f", t / u }')
	fr=$(awk -v t="$ft" -v u="$fu" 'BEGIN { if (u > 0) printf "%.3f", t / u }')
	if [ -n "$pr" ] && [ -n "$fr" ] && within "$pr" "$fr" 10; then
		ok stat-task-clock-ratio-vs-perf
	else
		not_ok stat-task-clock-ratio-vs-perf "task-clock/(user+sys): pcl '$pr' ($pt/$pu), perf '$fr' ($ft/$fu); want within 10%"
	fi
fi

# --- tracepoint: exactly K write(2) calls -----------------------------------
K=37
both wr -x, -e syscalls:sys_enter_write -- "$writes" $K
if ran_ok stat-tracepoint-exact wr; then
	p=$(csv_count "$TMP/wr.pcl.err" syscalls:sys_enter_write)
	f=$(csv_count "$TMP/wr.perf.err" syscalls:sys_enter_write)
	if [ "$p" = "$K" ] && [ "$f" = "$K" ]; then
		ok stat-tracepoint-exact
	else
		not_ok stat-tracepoint-exact "writes $K: syscalls:sys_enter_write pcl '$p', perf '$f'; want $K in both" \
			"pcl stderr:" "$(show "$TMP/wr.pcl.err")"
	fi
fi

# --- hardware breakpoint: a global written exactly M times ------------------
M=123
if memwrite=$(workload memwrite -no-pie) && addr=$(nm "$memwrite" | awk '$3 == "pcl_target" { print $1 }') &&
	[ -n "$addr" ]; then
	ev="mem:0x$addr:w"
	both bp -x, -e "$ev" -- "$memwrite" $M
	if ran_ok stat-breakpoint-exact bp; then
		p=$(awk -F, '$3 ~ /^mem:/ { print $1; exit }' "$TMP/bp.pcl.err")
		f=$(awk -F, '$3 ~ /^mem:/ { print $1; exit }' "$TMP/bp.perf.err")
		if [ "$p" = "$M" ] && [ "$f" = "$M" ]; then
			ok stat-breakpoint-exact
		else
			not_ok stat-breakpoint-exact "-e $ev, memwrite $M: pcl '$p', perf '$f'; want $M in both" \
				"pcl stderr:" "$(show "$TMP/bp.pcl.err")"
		fi
		# perf spells the address out in full: mem:0x0000000000404018:w
		p=$(awk -F, '$3 ~ /^mem:/ { print $3; exit }' "$TMP/bp.pcl.err")
		f=$(awk -F, '$3 ~ /^mem:/ { print $3; exit }' "$TMP/bp.perf.err")
		if [ "$p" = "$f" ]; then ok stat-breakpoint-name; else
			not_ok stat-breakpoint-name "-e $ev: pcl names the event '$p', perf '$f'"
		fi
	fi
else
	skip stat-breakpoint-exact "could not build memwrite with -no-pie or find pcl_target"
fi

# --- default output: same lines, same layout -------------------------------
both def -- "$touch_pages" 100
if ran_ok stat-default-structure def; then
	unscale <"$TMP/def.pcl.err" | norm_words >"$TMP/def.pcl.w"
	unscale <"$TMP/def.perf.err" | norm_words >"$TMP/def.perf.w"
	diff_or_ok stat-default-structure "$TMP/def.perf.w" "$TMP/def.pcl.w" perf pcl
	# Byte layout: numbers (with their padding) replaced by same-width runs.
	unscale <"$TMP/def.pcl.err" | norm_layout >"$TMP/def.pcl.l"
	unscale <"$TMP/def.perf.err" | norm_layout >"$TMP/def.perf.l"
	diff_or_ok stat-default-layout "$TMP/def.perf.l" "$TMP/def.pcl.l" perf pcl
fi

# --- -x, : same lines, same fields -----------------------------------------
both csv -x, -- "$touch_pages" 100
if ran_ok stat-csv-structure csv; then
	unscale <"$TMP/csv.pcl.err" | norm_words >"$TMP/csv.pcl.w"
	unscale <"$TMP/csv.perf.err" | norm_words >"$TMP/csv.perf.w"
	diff_or_ok stat-csv-structure "$TMP/csv.perf.w" "$TMP/csv.pcl.w" perf pcl
fi
both csvt -x, -e syscalls:sys_enter_write,page-faults,task-clock -- "$writes" 5
if ran_ok stat-csv-structure-tracepoint csvt; then
	unscale <"$TMP/csvt.pcl.err" | norm_words >"$TMP/csvt.pcl.w"
	unscale <"$TMP/csvt.perf.err" | norm_words >"$TMP/csvt.perf.w"
	diff_or_ok stat-csv-structure-tracepoint "$TMP/csvt.perf.w" "$TMP/csvt.pcl.w" perf pcl
fi

# --- -j : same lines, same keys --------------------------------------------
# perf -j prints "metric-unit" : "(null)" for events with no metric, pcl ""
# (a deliberate difference): normalised before comparing.
json_norm() { unnull | unscale | norm_words; }
both json -j -- "$touch_pages" 100
if ran_ok stat-json-structure json; then
	json_norm <"$TMP/json.pcl.err" >"$TMP/json.pcl.w"
	json_norm <"$TMP/json.perf.err" >"$TMP/json.perf.w"
	diff_or_ok stat-json-structure "$TMP/json.perf.w" "$TMP/json.pcl.w" perf pcl
fi
both jsonn -j -e syscalls:sys_enter_write,page-faults -- "$writes" 5
if ran_ok stat-json-structure-no-metric jsonn; then
	json_norm <"$TMP/jsonn.pcl.err" >"$TMP/jsonn.pcl.w"
	json_norm <"$TMP/jsonn.perf.err" >"$TMP/jsonn.perf.w"
	diff_or_ok stat-json-structure-no-metric "$TMP/jsonn.perf.w" "$TMP/jsonn.pcl.w" perf pcl
	if grep -q '"metric-unit" : "(null)"' "$TMP/jsonn.pcl.err"; then
		not_ok stat-json-no-null "pcl -j prints \"(null)\" as a metric unit:" "$(show "$TMP/jsonn.pcl.err")"
	else
		ok stat-json-no-null
	fi
fi

# --- -r 3: noise columns where perf has them -------------------------------
# task-clock varies run to run (perf prints "( +- x.xx% )"); an exact count
# does not (perf prints no noise column when it is 0.00%).
both rep -r 3 -e task-clock,syscalls:sys_enter_write -- "$writes" 5
if ran_ok stat-repeat-structure rep; then
	unscale <"$TMP/rep.pcl.err" | norm_words >"$TMP/rep.pcl.w"
	unscale <"$TMP/rep.perf.err" | norm_words >"$TMP/rep.perf.w"
	diff_or_ok stat-repeat-structure "$TMP/rep.perf.w" "$TMP/rep.pcl.w" perf pcl
	if grep -E 'msec task-clock .*  \( \+- *[0-9]+\.[0-9]{2}% \)$' "$TMP/rep.pcl.err" >/dev/null &&
		grep -E '^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed  \( \+- *[0-9]+\.[0-9]{2}% \)$' \
			"$TMP/rep.pcl.err" >/dev/null &&
		grep -E " \(3 runs\):$" "$TMP/rep.pcl.err" >/dev/null; then
		ok stat-repeat-noise
	else
		not_ok stat-repeat-noise "want '( +- x.xx% )' on the task-clock line, 'A +- B seconds time elapsed  ( +- x.xx% )'" \
			"and '(3 runs):' in the header; pcl stderr:" "$(show "$TMP/rep.pcl.err" 20)" \
			"perf stderr:" "$(show "$TMP/rep.perf.err" 20)"
	fi
	# The layout of the counter lines (the elapsed line's precision follows the noise).
	grep -E 'task-clock|sys_enter_write' "$TMP/rep.pcl.err" | unscale | norm_layout >"$TMP/rep.pcl.l"
	grep -E 'task-clock|sys_enter_write' "$TMP/rep.perf.err" | unscale | norm_layout >"$TMP/rep.perf.l"
	diff_or_ok stat-repeat-layout "$TMP/rep.perf.l" "$TMP/rep.pcl.l" perf pcl
fi
both repx -r 3 -x, -e task-clock,syscalls:sys_enter_write -- "$writes" 5
if ran_ok stat-repeat-csv-structure repx; then
	unscale <"$TMP/repx.pcl.err" | norm_words >"$TMP/repx.pcl.w"
	unscale <"$TMP/repx.perf.err" | norm_words >"$TMP/repx.perf.w"
	diff_or_ok stat-repeat-csv-structure "$TMP/repx.perf.w" "$TMP/repx.pcl.w" perf pcl
fi
both repj -r 3 -j -e task-clock,syscalls:sys_enter_write -- "$writes" 5
if ran_ok stat-repeat-json-structure repj; then
	json_norm <"$TMP/repj.pcl.err" >"$TMP/repj.pcl.w"
	json_norm <"$TMP/repj.perf.err" >"$TMP/repj.perf.w"
	diff_or_ok stat-repeat-json-structure "$TMP/repj.perf.w" "$TMP/repj.pcl.w" perf pcl
fi

# --- -r with a mean that is not whole: counts print whole, as perf's --------
# Run k of this script makes one write(2) more than run k-1, so two runs
# average to C + 0.5. perf keeps counts as u64 and prints them with %.0f
# (%.2f only for scaled units such as msec); a mean prints truncated, as
# perf 6.5+ stores avg_stats() in the u64 count (6.1 prints the last run's).
cat >"$TMP/grow.sh" <<EOF
n=0
[ -f "$TMP/grow.n" ] && read -r n <"$TMP/grow.n"
n=\$((n + 1))
echo \$n >"$TMP/grow.n"
exec "$writes" \$((4 + n))
EOF
rm -f "$TMP/grow.n"
run grow1 "$PCL" stat -x, -e syscalls:sys_enter_write -- sh "$TMP/grow.sh"
c1=$(csv_count "$TMP/grow1.err" syscalls:sys_enter_write)
for f in plain csv json; do
	case $f in plain) fl= ;; csv) fl=-x, ;; json) fl=-j ;; esac
	rm -f "$TMP/grow.n"
	run "grow-$f.pcl" "$PCL" stat -r 2 $fl -e task-clock,syscalls:sys_enter_write -- sh "$TMP/grow.sh"
	rm -f "$TMP/grow.n"
	run "grow-$f.perf" perf stat -r 2 $fl -e task-clock,syscalls:sys_enter_write -- sh "$TMP/grow.sh"
done
# grow_count FILE FORMAT: the count field of the sys_enter_write row
grow_count() {
	case $2 in
	plain) awk '$2 == "syscalls:sys_enter_write" { print $1 }' "$1" ;;
	csv) awk -F, '$3 == "syscalls:sys_enter_write" { print $1 }' "$1" ;;
	json) sed -n 's/.*"counter-value" : "\([^"]*\)".*"event" : "syscalls:sys_enter_write".*/\1/p' "$1" ;;
	esac
}
# grow_whole VALUE FORMAT: plain and CSV whole, JSON %f of a whole number
grow_whole() { case $2 in json) [[ $1 =~ ^[0-9]+\.000000$ ]] ;; *) [[ $1 =~ ^[0-9]+$ ]] ;; esac; }
if ! [[ $c1 =~ ^[0-9]+$ ]]; then
	not_ok stat-repeat-whole-counts "one run gave no count; pcl stderr:" "$(show "$TMP/grow1.err")"
else
	bad=
	for f in plain csv json; do
		p=$(grow_count "$TMP/grow-$f.pcl.err" $f)
		q=$(grow_count "$TMP/grow-$f.perf.err" $f)
		if ! grow_whole "$q" $f; then
			bad="$bad perf $f '$q' is not whole;"
		elif ! grow_whole "$p" $f || [ "${p%%.*}" != "$c1" ]; then
			bad="$bad $f: pcl '$p', perf '$q';"
		fi
	done
	if [ -z "$bad" ]; then
		ok stat-repeat-whole-counts
	else
		not_ok stat-repeat-whole-counts "runs of $c1 and $((c1 + 1)) writes: want pcl to print" \
			"the truncated mean $c1 as a whole count, as perf prints counts;$bad" \
			"pcl plain:" "$(show "$TMP/grow-plain.pcl.err")"
	fi
	# and the rows keep perf's layout (the msec row its two decimals)
	grep -E 'task-clock|sys_enter_write' "$TMP/grow-plain.pcl.err" | unscale | norm_layout >"$TMP/grow.pcl.l"
	grep -E 'task-clock|sys_enter_write' "$TMP/grow-plain.perf.err" | unscale | norm_layout >"$TMP/grow.perf.l"
	diff_or_ok stat-repeat-whole-layout "$TMP/grow.perf.l" "$TMP/grow.pcl.l" perf pcl
fi
exit 0
