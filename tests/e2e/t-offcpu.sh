#!/usr/bin/env bash
# pcl record --off-cpu (docs/offcpu.md): the offcpu workload spins MS ms of
# CPU time in spin_here and sleeps MS ms in sleep_here, ROUNDS times per
# thread. Checked: the file has an offcpu-time event whose samples weigh
# the time blocked (their sum near the sleeps'), all under sleep_here;
# perf report and perf script read pcl's file and show the same
# offcpu-time entries and periods as pcl; pcl report --wall gives each
# thread about half on and half off CPU, sleep_here ~50% of the wall time
# off CPU and spin_here ~50% on it; --call-graph dwarf, -p and -a work;
# what cannot be done is refused with one line.
. "$(dirname "$0")/lib.sh"

if ! has_record; then
	skip offcpu "this pcl has no record command"
	exit 0
fi
wl=$WORKLOADS/offcpu
if [ ! -x "$wl" ]; then
	skip offcpu "workload $wl not built (make tests)"
	exit 0
fi
if [ ! -r /sys/kernel/tracing/events/sched/sched_switch/format ] &&
	[ ! -r /sys/kernel/debug/tracing/events/sched/sched_switch/format ]; then
	skip offcpu "no sched:sched_switch tracepoint readable here (tracefs)"
	exit 0
fi

# one thread (no join to wait in), sleeps long next to the wake-up delays
# of a busy machine (an interval runs to the switch-in, a CPU's wait too)
MS=50 ROUNDS=8 THREADS=1
F=$TMP/off.data

# section EVENT FILE: the entry lines of EVENT's section of a report --stdio
section() {
	awk -v ev="'$1'" '/^# Samples: / { on = index($0, ev) > 0; next } on && /^ +[0-9.]+%/' "$2"
}
# pct_of SYMBOL: the first percentage on the line that ends in SYMBOL
pct_of() { awk -v s="$1" '$NF == s { sub("%", "", $1); print $1; exit }'; }
# in_range V LO HI
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

# --no-fp-leaf: perf does not see -g's leaf repair (t-fpleaf.sh), and compares with pcl here
run_long rec 60 "$PCL" record -N --off-cpu -g --no-fp-leaf -o "$F" -- "$wl" $MS $ROUNDS $THREADS
if [ "$RC" -ne 0 ] || crashed "$TMP/rec.err" "$RC" || [ ! -s "$F" ]; then
	not_ok offcpu-record "pcl record --off-cpu -g: exit $RC (want 0)" "$(show "$TMP/rec.err")"
	exit 0
fi
ok offcpu-record

if "$PCL" evlist -i "$F" 2>/dev/null | grep -qx "offcpu-time"; then
	ok offcpu-evlist
else
	not_ok offcpu-evlist "pcl evlist: no offcpu-time event" "$("$PCL" evlist -i "$F" 2>&1)"
fi

# the periods: ns blocked, near THREADS * ROUNDS * MS ms in all (wake-ups add a little)
"$PCL" script -i "$F" -F event,period 2>/dev/null | awk '$2 == "offcpu-time:" { n++; s += $1 } END { print n + 0, s + 0 }' >"$TMP/pcl.sum"
read -r n ns <"$TMP/pcl.sum"
want=$((THREADS * ROUNDS * MS * 1000000))
if [ "$n" -ge $((THREADS * ROUNDS)) ] && in_range "$ns" $((want * 9 / 10)) $((want * 3)); then
	ok offcpu-periods
else
	not_ok offcpu-periods "pcl script: $n offcpu-time samples (want >= $((THREADS * ROUNDS))), $ns ns (want ~$want)"
fi

# all the time blocked is under sleep_here (it makes the system call itself)
"$PCL" report -i "$F" --stdio --no-children -g none --sort sym >"$TMP/pcl.rep" 2>"$TMP/pcl.rep.err"
p=$(section offcpu-time "$TMP/pcl.rep" | pct_of sleep_here)
if in_range "$p" 95 100.01; then
	ok offcpu-report-self
else
	not_ok offcpu-report-self "pcl report: offcpu-time under sleep_here ${p:-none}% (want ~100)" "$(show "$TMP/pcl.rep" 30)"
fi
"$PCL" report -i "$F" --stdio --children -g none --sort sym >"$TMP/pcl.chl" 2>/dev/null
p=$(section offcpu-time "$TMP/pcl.chl" | pct_of worker)
if in_range "$p" 95 100.01; then
	ok offcpu-report-callers
else
	not_ok offcpu-report-callers "pcl report --children: offcpu-time under worker ${p:-none}% (want ~100)" "$(show "$TMP/pcl.chl" 30)"
fi

# perf reads pcl's file: the same offcpu-time entries and periods
if have_perf; then
	for mode in no-children children; do
		perf report -i "$F" --stdio --$mode -g none --sort comm,dso,sym >"$TMP/perf.$mode" 2>"$TMP/perf.$mode.err"
		"$PCL" report -i "$F" --stdio --$mode -g none --sort comm,dso,sym >"$TMP/pcl.$mode" 2>/dev/null
		section offcpu-time "$TMP/perf.$mode" >"$TMP/perf.$mode.sec"
		section offcpu-time "$TMP/pcl.$mode" >"$TMP/pcl.$mode.sec"
		if [ -s "$TMP/perf.$mode.sec" ]; then
			diff_or_ok "offcpu-perf-report-$mode" "$TMP/perf.$mode.sec" "$TMP/pcl.$mode.sec" \
				"perf report --$mode (offcpu-time)" "pcl report --$mode (offcpu-time)"
		else
			not_ok "offcpu-perf-report-$mode" "perf report shows no offcpu-time section" "$(show "$TMP/perf.$mode.err")"
		fi
	done
	perf script -i "$F" -F event,period 2>/dev/null | awk '$2 == "offcpu-time:" { n++; s += $1 } END { print n + 0, s + 0 }' >"$TMP/perf.sum"
	diff_or_ok offcpu-perf-script "$TMP/perf.sum" "$TMP/pcl.sum" "perf script offcpu-time count, ns" "pcl script"
else
	skip offcpu-perf-report "perf is not installed"
fi

# --wall: the thread about half on and half off; sleep_here ~50% off, spin_here ~50% on
run wall "$PCL" report -i "$F" --wall --children
if [ "$RC" -ne 0 ]; then
	not_ok offcpu-wall "pcl report --wall: exit $RC" "$(show "$TMP/wall.err")"
else
	bad=$(awk '$NF == "offcpu" && $3 ~ /%$/ && $5 ~ /%$/ { n++; sub("%", "", $5); if ($5 < 40 || $5 > 60) print }
		END { if (n != '$THREADS') print "threads: " n+0 }' "$TMP/wall.out")
	if [ -z "$bad" ]; then
		ok offcpu-wall-threads
	else
		not_ok offcpu-wall-threads "threads off CPU 40-60% of their wall time, $THREADS of them:" "$bad" "$(show "$TMP/wall.out" 20)"
	fi
	row() { awk -v s="$1" '$NF == s { gsub("%", ""); print $1, $2, $3; exit }' "$TMP/wall.out"; }
	read -r w on off <<<"$(row sleep_here)"
	if in_range "$w" 40 60 && in_range "$off" 40 60 && in_range "$on" 0 2; then
		ok offcpu-wall-sleep
	else
		not_ok offcpu-wall-sleep "sleep_here: wall ${w:-?}% on ${on:-?}% off ${off:-?}% (want ~50, ~0, ~50)" "$(show "$TMP/wall.out" 30)"
	fi
	read -r w on off <<<"$(row spin_here)"
	if in_range "$w" 40 60 && in_range "$on" 40 60 && in_range "$off" 0 0.01; then
		ok offcpu-wall-spin
	else
		not_ok offcpu-wall-spin "spin_here: wall ${w:-?}% on ${on:-?}% off ${off:-?}% (want ~50, ~50, 0)" "$(show "$TMP/wall.out" 30)"
	fi
	read -r w on off <<<"$(row worker)"
	if in_range "$w" 95 100.01; then
		ok offcpu-wall-caller
	else
		not_ok offcpu-wall-caller "worker: wall ${w:-?}% (want ~100: the caller of both)" "$(show "$TMP/wall.out" 30)"
	fi
fi

# two threads: a row each, with time on and off CPU
run_long rec2 60 "$PCL" record -N --off-cpu -g -o "$TMP/two.data" -- "$wl" 10 5 2
run wall2 "$PCL" report -i "$TMP/two.data" --wall
n=$(awk '$NF == "offcpu" && $3 ~ /%$/ && $5 ~ /%$/ && $2 > 0 && $4 > 0' "$TMP/wall2.out" | wc -l)
if [ "$RC" -eq 0 ] && [ "$n" -eq 2 ]; then
	ok offcpu-wall-two-threads
else
	not_ok offcpu-wall-two-threads "pcl report --wall: $n thread rows with on and off time (want 2)" "$(show "$TMP/wall2.out" 12)"
fi

# --call-graph dwarf, sleeping in libc's nanosleep: unwound through it to sleep_here
D=$TMP/dwarf.data
run_long recd 60 "$PCL" record -N --off-cpu --call-graph dwarf -o "$D" -- "$wl" $MS 5 1 libc
if [ "$RC" -ne 0 ] || [ ! -s "$D" ]; then
	not_ok offcpu-dwarf "pcl record --off-cpu --call-graph dwarf: exit $RC" "$(show "$TMP/recd.err")"
else
	"$PCL" report -i "$D" --stdio --children -g none --sort sym >"$TMP/dw.rep" 2>/dev/null
	p=$(section offcpu-time "$TMP/dw.rep" | pct_of sleep_here)
	if in_range "$p" 95 100.01; then
		ok offcpu-dwarf
	else
		not_ok offcpu-dwarf "dwarf: offcpu-time under sleep_here ${p:-none}% (want ~100)" "$(show "$TMP/dw.rep" 30)"
	fi
	if have_perf; then
		perf report -i "$D" --stdio --children -g none --sort sym >"$TMP/dw.perf" 2>/dev/null
		p=$(section offcpu-time "$TMP/dw.perf" | pct_of sleep_here)
		if in_range "$p" 95 100.01; then
			ok offcpu-dwarf-perf
		else
			not_ok offcpu-dwarf-perf "perf report (dwarf): offcpu-time under sleep_here ${p:-none}% (want ~100)" "$(show "$TMP/dw.perf" 30)"
		fi
	fi
fi

# -p: a process already running
"$wl" 10 100000 1 &
pid=$!
sleep 0.2
P=$TMP/pid.data
run_long recp 30 "$PCL" record -N --off-cpu -g -p $pid -o "$P" -- sleep 1
kill $pid 2>/dev/null
wait $pid 2>/dev/null
n=$("$PCL" script -i "$P" -F event 2>/dev/null | grep -c offcpu-time)
if [ "$RC" -eq 0 ] && [ "$n" -ge 3 ]; then
	ok offcpu-pid
else
	not_ok offcpu-pid "pcl record --off-cpu -p: exit $RC, $n offcpu-time samples (want >= 3)" "$(show "$TMP/recp.err")"
fi

# a thread that went to sleep and still sleeps at the end: counted up to the
# end of the recording (~0.5 s here; one asleep from before the start has no
# switch-out recorded, and no stack to count it under)
sh -c 'sleep 0.5; exec sleep 30' &
pid=$!
sleep 0.1
run_long recs 30 "$PCL" record -N --off-cpu -g -p $pid -o "$TMP/sleep.data" -- sleep 1
kill $pid 2>/dev/null
wait $pid 2>/dev/null
"$PCL" script -i "$TMP/sleep.data" -F period,event 2>/dev/null | awk '$2 == "offcpu-time:" { n++; s += $1 } END { print n + 0, s + 0 }' >"$TMP/sleep.sum"
read -r n ns <"$TMP/sleep.sum"
if [ "$RC" -eq 0 ] && [ "$n" -ge 1 ] && in_range "$ns" 200000000 900000000; then
	ok offcpu-asleep-at-end
else
	not_ok offcpu-asleep-at-end "pcl record --off-cpu -p (sh, then sleep 30): $n offcpu-time samples, $ns ns (want >= 1, ~0.5 s)" "$(show "$TMP/recs.err")"
fi

# -a: every thread; the command's 'sleep' is among them
A=$TMP/all.data
run_long reca 60 "$PCL" record -N --off-cpu -a -g -o "$A" -- sleep 0.3
if [ "$RC" -eq 0 ] && "$PCL" script -i "$A" -F comm,event 2>/dev/null | grep -q "^ *sleep  *offcpu-time"; then
	ok offcpu-system-wide
else
	not_ok offcpu-system-wide "pcl record --off-cpu -a -- sleep: exit $RC, no offcpu-time sample of 'sleep'" "$(show "$TMP/reca.err")"
fi

# refusals: one line, non-zero
run nooff "$PCL" report -i "$A" --wall
run plain "$PCL" record -N -o "$TMP/plain.data" -- true
run nowall "$PCL" report -i "$TMP/plain.data" --wall
if [ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/nowall.err")" -eq 1 ] && grep -q "offcpu-time" "$TMP/nowall.err"; then
	ok offcpu-wall-refused
else
	not_ok offcpu-wall-refused "pcl report --wall without offcpu-time: exit $RC (want != 0, one line naming offcpu-time)" "$(show "$TMP/nowall.err")"
fi
run wsort "$PCL" report -i "$F" --wall -s dso
if [ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/wsort.err")" -eq 1 ]; then
	ok offcpu-wall-sort-refused
else
	not_ok offcpu-wall-sort-refused "pcl report --wall -s dso: exit $RC (want != 0, one line)" "$(show "$TMP/wsort.err")"
fi
run ow "$PCL" record -N --off-cpu --overwrite -o "$TMP/ow.data" -- true
if [ "$RC" -ne 0 ] && [ "$(wc -l <"$TMP/ow.err")" -eq 1 ]; then
	ok offcpu-overwrite-refused
else
	not_ok offcpu-overwrite-refused "pcl record --off-cpu --overwrite: exit $RC (want != 0, one line)" "$(show "$TMP/ow.err")"
fi

# --cpu on a file without CPU numbers (no -a): refused, as report's table
# is, not an empty --wall or export
for a in "--wall" "--wall --format=folded"; do
	name=offcpu-wall-cpu-refused; [ "$a" = --wall ] || name=offcpu-export-cpu-refused
	"$PCL" report -i "$F" $a --cpu 0 >"$TMP/wcpu.out" 2>"$TMP/wcpu.err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q "no CPU numbers" "$TMP/wcpu.err"; then
		ok "$name"
	else
		not_ok "$name" "pcl report $a --cpu 0 (no CPU in the file): exit $rc" "$(show "$TMP/wcpu.err")" "$(show "$TMP/wcpu.out" 3)"
	fi
done

# lost records: off-CPU intervals (and on-CPU samples) are missing from
# --wall, which must say so (one ring page, every switch of the machine)
run_long lost 60 "$PCL" record -N --off-cpu -g -m 1 -a -o "$TMP/lost.data" -- "$wl" 5 20 2
if ! grep -q "lost [0-9]* samples in [0-9]* chunks" "$TMP/lost.err"; then
	skip offcpu-wall-lost "no record was lost with -m 1 -a this time"
else
	"$PCL" report -i "$TMP/lost.data" --wall >/dev/null 2>"$TMP/lostw.err"
	if grep -q "warning: [0-9]* records were lost" "$TMP/lostw.err"; then
		ok offcpu-wall-lost
	else
		not_ok offcpu-wall-lost "pcl report --wall on a file with LOST records: no warning" "$(show "$TMP/lostw.err")"
	fi
fi

# perf's own test, with pcl as perf (t-perf-shell.sh does not run it: perf
# 6.1 skips it here, without BPF); its second case runs perf bench
st=/usr/lib/perf-core/tests/shell/record_offcpu.sh
if [ ! -r "$st" ]; then
	skip offcpu-perf-shell "perf's tests are not installed ($st)"
elif ! has_cmd bench; then
	skip offcpu-perf-shell "its child case runs 'perf bench sched messaging': this pcl has no bench"
else
	mkdir -p "$TMP/shim" "$TMP/cwd"
	ln -sf "$PCL" "$TMP/shim/perf"
	(cd "$TMP/cwd" && PATH=$TMP/shim:$PATH PCL_ERROR_LOG=$TMP/errors timeout -k 10 300 bash "$st" </dev/null >"$TMP/ps.out" 2>&1)
	rc=$?
	refused=$(grep -E "unknown option|is not a pcl command|needs a value|not supported by pcl" "$TMP/errors" 2>/dev/null)
	if [ $rc -eq 0 ] && [ -z "$refused" ] && grep -q "Basic off-cpu test \[Success\]" "$TMP/ps.out" &&
		grep -q "Child task off-cpu test \[Success\]" "$TMP/ps.out"; then
		ok offcpu-perf-shell
	else
		not_ok offcpu-perf-shell "record_offcpu.sh with pcl as perf: exit $rc" "$(show "$TMP/ps.out")" "${refused:+refused: $refused}"
	fi
fi
