#!/usr/bin/env bash
# pcl stat output formats: plain, -x (CSV, custom separator), -j (JSON), -I
# intervals, aggregation modes, -n, -o, -B. Counts come from events the
# kernel makes exact (tracepoints of a workload making known system calls),
# so different runs and different formats must carry the same numbers.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok stat-formats-pcl-built "no executable at $PCL"
	exit 0
fi
writes=$(workload writes)
touch_pages=$(workload touch-pages)
EVS=syscalls:sys_enter_write,syscalls:sys_enter_exit_group
K=53

# norm_fmt FORMAT: plain output keeps its columns (norm_layout); CSV and JSON
# numbers are not padded, so only the words are compared (norm_words).
norm_fmt() { if [ "$1" = plain ]; then norm_layout; else norm_words; fi; }

# pcl_ok NAME TAG: not ok (and false) if the last run (tag TAG) failed or crashed.
pcl_ok() {
	if [ "$RC" -ne 0 ] || crashed "$TMP/$2.err" "$RC"; then
		not_ok "$1" "pcl exited $RC; stderr:" "$(show "$TMP/$2.err")"
		return 1
	fi
}

# --- the same exact numbers in the three formats, written with -o ----------
run fo-plain "$PCL" stat -o "$TMP/f.txt" -e $EVS -- "$writes" $K
rc1=$RC
run fo-csv "$PCL" stat -o "$TMP/f.csv" -x, -e $EVS -- "$writes" $K
rc2=$RC
run fo-json "$PCL" stat -o "$TMP/f.json" -j -e $EVS -- "$writes" $K
rc3=$RC
if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ $rc3 -ne 0 ] || [ ! -f "$TMP/f.txt" ] || [ ! -f "$TMP/f.csv" ] ||
	[ ! -f "$TMP/f.json" ]; then
	not_ok stat-formats-same-numbers "exit statuses plain $rc1, -x $rc2, -j $rc3; files:" \
		"$(ls -l "$TMP"/f.* 2>&1)" "stderr of the plain run:" "$(show "$TMP/fo-plain.err")"
else
	pw=$(plain_count "$TMP/f.txt" syscalls:sys_enter_write)
	pe=$(plain_count "$TMP/f.txt" syscalls:sys_enter_exit_group)
	cw=$(csv_count "$TMP/f.csv" syscalls:sys_enter_write)
	ce=$(csv_count "$TMP/f.csv" syscalls:sys_enter_exit_group)
	jv() { # event -> counter-value as an integer, from the JSON file
		if command -v python3 >/dev/null 2>&1; then
			python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.strip() and not l.startswith("#"):
        o = json.loads(l)
        if o.get("event") == sys.argv[2]:
            v = o.get("counter-value")
            try:
                print("%g" % float(v))
            except (TypeError, ValueError):
                print(v)
            break' "$TMP/f.json" "$1" 2>/dev/null
		else
			sed -n "s/.*\"counter-value\" : \"\([0-9]*\)\.0*\", \"unit\" : \"[^\"]*\", \"event\" : \"$1\".*/\1/p" \
				"$TMP/f.json" | head -1
		fi
	}
	jw=$(jv syscalls:sys_enter_write)
	je=$(jv syscalls:sys_enter_exit_group)
	got="plain $pw/$pe, csv $cw/$ce, json $jw/$je"
	if [ "$got" = "plain $K/1, csv $K/1, json $K/1" ]; then
		ok stat-formats-same-numbers
	else
		not_ok stat-formats-same-numbers "writes $K: sys_enter_write/sys_enter_exit_group counts: $got" \
			"want $K/1 in each" "plain:" "$(show "$TMP/f.txt")" "csv:" "$(show "$TMP/f.csv")" \
			"json:" "$(show "$TMP/f.json")"
	fi
	# Field counts: perf prints 7 fields per counter line here (no metric).
	# Like perf, the -o file may start with a "# started on DATE" comment.
	grep -v '^#' "$TMP/f.csv" >"$TMP/f.csv.body"
	grep -v '^#' "$TMP/f.json" >"$TMP/f.json.body"
	bad=$(awk -F, 'NF && NF != 7' "$TMP/f.csv.body")
	if [ -z "$bad" ] && [ "$(grep -c . "$TMP/f.csv.body")" -eq 2 ]; then
		ok stat-csv-fields
	else
		not_ok stat-csv-fields "want 2 lines of 7 comma-separated fields; got:" "$(show "$TMP/f.csv")"
	fi
	json_lines "$TMP/f.json.body"
	case $? in
	0) if [ "$(grep -c . "$TMP/f.json.body")" -eq 2 ]; then ok stat-json-valid; else
		not_ok stat-json-valid "want 2 JSON lines; got:" "$(show "$TMP/f.json")"
	fi ;;
	2) skip stat-json-valid "neither python3 nor jq" ;;
	*) not_ok stat-json-valid "not one JSON object per line:" "$(show "$TMP/f.json")" ;;
	esac
	if grep -q . "$TMP/fo-plain.err" "$TMP/fo-csv.err" "$TMP/fo-json.err"; then
		not_ok stat-output-file "with -o FILE, stderr should be empty; got:" \
			"$(cat "$TMP/fo-plain.err" "$TMP/fo-csv.err" "$TMP/fo-json.err" | head -10)"
	elif grep -q '^ Performance counter stats for ' "$TMP/f.txt"; then
		ok stat-output-file
	else
		not_ok stat-output-file "the -o file lacks the stats header:" "$(show "$TMP/f.txt")"
	fi
fi

# -o layout against perf's -o (perf starts the file with "# started on DATE").
if have_perf && [ -f "$TMP/f.txt" ]; then
	run fo-perf perf stat -o "$TMP/p.txt" -e $EVS -- "$writes" $K
	head -1 "$TMP/f.txt" | grep -q '^# started on ' && h=ok || h="first line '$(head -1 "$TMP/f.txt")'"
	tail -n +2 "$TMP/f.txt" | norm_words >"$TMP/f.w"
	tail -n +2 "$TMP/p.txt" | norm_words >"$TMP/p.w"
	if [ "$h" = ok ] && cmp -s "$TMP/f.w" "$TMP/p.w"; then ok stat-output-file-structure; else
		not_ok stat-output-file-structure "want '# started on ...' then perf's lines ($h); diff perf pcl:" \
			"$(diff "$TMP/p.w" "$TMP/f.w" | head -20)"
	fi
fi

# --- -x with a custom separator -------------------------------------------
run sep "$PCL" stat -x';' -e task-clock,syscalls:sys_enter_write -- "$writes" $K
if pcl_ok stat-csv-custom-separator sep; then
	c=$(csv_count "$TMP/sep.err" syscalls:sys_enter_write ';')
	nf=$(awk -F';' 'NF { print NF }' "$TMP/sep.err" | sort -u | tr '\n' ' ')
	unit=$(awk -F';' '$3 == "task-clock" { print $2 }' "$TMP/sep.err")
	if [ "$c" = $K ] && [ "$nf" = "7 " ] && [ "$unit" = msec ]; then
		ok stat-csv-custom-separator
	else
		not_ok stat-csv-custom-separator "-x';': want count $K, 7 fields per line, task-clock unit msec;" \
			"got count '$c', field counts '$nf', unit '$unit':" "$(show "$TMP/sep.err")"
	fi
fi

# --- -I 100 on a ~350 ms workload ------------------------------------------
run iv "$PCL" stat -I 100 -x, -e syscalls:sys_enter_write -- "$writes" 35 350
if pcl_ok stat-interval iv; then
	res=$(awk -F, '
		/^#/ || !NF { next }
		$4 != "syscalls:sys_enter_write" { bad = bad " [" $0 "]"; next }
		{ n++; t = $1 + 0; if (n > 1 && t <= last) mono = 0; last = t
		  if ($2 ~ /^[0-9]+$/) sum += $2; else if ($2 != "<not counted>") bad = bad " [" $0 "]" }
		BEGIN { mono = 1 }
		END { printf "%d %d %d %s\n", n, mono, sum, (bad == "" ? "-" : bad) }' "$TMP/iv.err")
	read -r n mono sum bad <<<"$res"
	run iv-total "$PCL" stat -x, -e syscalls:sys_enter_write -- "$writes" 35 350
	total=$(csv_count "$TMP/iv-total.err" syscalls:sys_enter_write)
	if [ "$n" -ge 3 ] && [ "$mono" = 1 ] && [ "$sum" = "$total" ] && [ "$total" = 35 ] && [ "$bad" = - ]; then
		ok stat-interval
	else
		not_ok stat-interval "-I 100 -x, on writes 35 350: $n intervals (want >= 3), timestamps increasing: $mono," \
			"sum of interval counts $sum, total of a run without -I '$total' (want both 35), odd lines: $bad" \
			"$(show "$TMP/iv.err" 20)"
	fi
fi
# Interval layouts against perf's: the set of distinct line shapes.
if have_perf; then
	for fmt in plain csv json; do
		case $fmt in plain) o=() ;; csv) o=(-x,) ;; json) o=(-j) ;; esac
		run ivp-$fmt "$PCL" stat -I 100 "${o[@]}" -e task-clock,syscalls:sys_enter_write -- "$writes" 35 350
		r1=$RC
		run ivf-$fmt perf stat -I 100 "${o[@]}" -e task-clock,syscalls:sys_enter_write -- "$writes" 35 350
		# <not counted> intervals come and go with timing: leave them out.
		grep -v 'not counted' "$TMP/ivp-$fmt.err" | unnull | unscale | norm_fmt $fmt | sort -u >"$TMP/ivp-$fmt.l"
		grep -v 'not counted' "$TMP/ivf-$fmt.err" | unnull | unscale | norm_fmt $fmt | sort -u >"$TMP/ivf-$fmt.l"
		if [ $r1 -ne 0 ] || crashed "$TMP/ivp-$fmt.err" $r1; then
			not_ok stat-interval-layout-$fmt "pcl exited $r1:" "$(show "$TMP/ivp-$fmt.err")"
		else
			diff_or_ok stat-interval-layout-$fmt "$TMP/ivf-$fmt.l" "$TMP/ivp-$fmt.l" perf pcl
		fi
	done
fi

# Every line of -j output is a JSON object, interval lines included.
run ivj "$PCL" stat -I 100 -j -e task-clock,syscalls:sys_enter_write -- "$writes" 10 250
json_lines "$TMP/ivj.err"
case $? in
0) if [ "$RC" -eq 0 ] && grep -q '"interval"' "$TMP/ivj.err"; then ok stat-json-interval-valid; else
	not_ok stat-json-interval-valid "exit $RC; want \"interval\" keys:" "$(show "$TMP/ivj.err")"
fi ;;
2) skip stat-json-interval-valid "neither python3 nor jq" ;;
*) not_ok stat-json-interval-valid "-I 100 -j: not one JSON object per line (exit $RC):" "$(show "$TMP/ivj.err")" ;;
esac

# --- aggregation modes with -a: the prefixes perf prints --------------------
if have_perf; then
	for mode in -A --per-core --per-socket; do
		for fmt in plain csv json; do
			case $fmt in plain) o=() ;; csv) o=(-x,) ;; json) o=(-j) ;; esac
			name=stat-aggr${mode#-}-$fmt
			name=${name//--/-}
			run agp "$PCL" stat -a $mode "${o[@]}" -e task-clock,context-switches -- sleep 0.1
			r1=$RC
			run agf perf stat -a $mode "${o[@]}" -e task-clock,context-switches -- sleep 0.1
			if [ $r1 -ne 0 ] || crashed "$TMP/agp.err" $r1; then
				not_ok "$name" "pcl stat -a $mode ${o[*]} exited $r1:" "$(show "$TMP/agp.err")"
				continue
			fi
			unnull <"$TMP/agp.err" | unscale | norm_fmt $fmt >"$TMP/agp.l"
			unnull <"$TMP/agf.err" | unscale | norm_fmt $fmt >"$TMP/agf.l"
			diff_or_ok "$name" "$TMP/agf.l" "$TMP/agp.l" perf pcl
		done
	done
	# --per-thread of one known process: the comm-tid prefix.
	sleep 0.6 &
	spid=$!
	sleep 0.1
	run ptp "$PCL" stat --per-thread -p $spid -e task-clock,context-switches
	r1=$RC
	wait $spid
	sleep 0.6 &
	spid=$!
	sleep 0.1
	run ptf perf stat --per-thread -p $spid -e task-clock,context-switches
	wait $spid
	if [ $r1 -ne 0 ] || crashed "$TMP/ptp.err" $r1; then
		not_ok stat-per-thread "pcl stat --per-thread -p PID exited $r1:" "$(show "$TMP/ptp.err")"
	else
		# Elapsed time: perf notices the exit up to a second late; ignore it.
		pid_norm() { grep -v 'time elapsed' | sed -E "s/sleep-[0-9]+/sleep-PID/; s/process id '[0-9]+'/process id 'PID'/"; }
		pid_norm <"$TMP/ptf.err" | unscale | norm_layout >"$TMP/ptf.l"
		pid_norm <"$TMP/ptp.err" | unscale | norm_layout >"$TMP/ptp.l"
		diff_or_ok stat-per-thread "$TMP/ptf.l" "$TMP/ptp.l" perf pcl
	fi
	# -a --per-thread: one line per thread, "comm-tid" right-aligned like perf.
	run pta "$PCL" stat -a --per-thread -e task-clock -- sleep 0.1
	if [ $RC -ne 0 ] || crashed "$TMP/pta.err" $RC; then
		not_ok stat-per-thread-all "pcl stat -a --per-thread exited $RC:" "$(show "$TMP/pta.err")"
	else
		lines=$(grep -c 'msec task-clock' "$TMP/pta.err")
		badl=$(grep 'msec task-clock' "$TMP/pta.err" | grep -vE '^.{16,}-[0-9]+ +[0-9.,]+ msec task-clock ')
		if [ "$lines" -ge 2 ] && [ -z "$badl" ]; then ok stat-per-thread-all; else
			not_ok stat-per-thread-all "want >= 2 lines 'COMM(right-aligned in 16)-TID  N msec task-clock'; got $lines;" \
				"lines not in that form:" "$badl" "$(show "$TMP/pta.err")"
		fi
	fi
else
	skip stat-aggr "perf is not installed"
fi

# --- -n: a null run prints only the elapsed time ---------------------------
run null "$PCL" stat -n -- sleep 0.1
if pcl_ok stat-null-run null; then
	if grep -q 'seconds time elapsed' "$TMP/null.err" &&
		! grep -qE 'clock|context-switches|migrations|faults|cycles|instructions|branch' "$TMP/null.err"; then
		ok stat-null-run
	else
		not_ok stat-null-run "want the elapsed time and no counters:" "$(show "$TMP/null.err")"
	fi
	if have_perf; then
		run nullf perf stat -n -- sleep 0.1
		norm_words <"$TMP/null.err" >"$TMP/null.w"
		norm_words <"$TMP/nullf.err" >"$TMP/nullf.w"
		diff_or_ok stat-null-run-structure "$TMP/nullf.w" "$TMP/null.w" perf pcl
	fi
fi

# --- -B / --big-num and --no-big-num are accepted --------------------------
for o in -B --big-num --no-big-num; do
	run big "$PCL" stat $o -e page-faults -- "$touch_pages" 2000
	c=$(plain_count "$TMP/big.err" page-faults)
	if [ $RC -eq 0 ] && ! crashed "$TMP/big.err" $RC && [ -n "$c" ] && [ "$c" -ge 2000 ] 2>/dev/null; then
		ok "stat-bignum${o}"
	else
		not_ok "stat-bignum${o}" "pcl stat $o -e page-faults -- touch-pages 2000: exit $RC, count '$c' (want >= 2000)" \
			"$(show "$TMP/big.err")"
	fi
done
exit 0
