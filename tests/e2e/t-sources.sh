#!/usr/bin/env bash
# User-space event sources in pcl stat: proc/ (per-process counters from
# procfs), psi/ (pressure stall time) and power/ (RAPL energy from
# powercap). Exact write counts of dd, perf's CSV unit column, rows next to
# kernel events, <not supported> with a reason on a machine without the
# files, and errors for names that do not exist.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok sources-pcl-built "no executable at $PCL"
	exit 0
fi

DD=(dd if=/dev/zero of="$TMP/dd.out" bs=4096 count=100 status=none)
# csv_row FILE EVENT: the -x, line of EVENT (third field), or nothing.
csv_row() { awk -F, -v ev="$2" '$3 == ev { print; exit }' "$1"; }
# The power source is "powercap" when the kernel has a perf PMU named power.
POWER=power
[ -e /sys/bus/event_source/devices/power ] && POWER=powercap
have_rapl() { ls /sys/class/powercap 2>/dev/null | grep -q 'rapl:'; }

# --- proc/: exact counts of dd's writes, read after pcl reaped it ----------
run dd "$PCL" stat -x, -e proc/syscw/,proc/wchar/ -- "${DD[@]}"
syscw=$(csv_count "$TMP/dd.err" proc/syscw/)
wchar=$(csv_count "$TMP/dd.err" proc/wchar/)
if [ $RC -eq 0 ] && [ "$syscw" = 100 ] && [ "$wchar" = 409600 ]; then
	ok sources-proc-dd-exact
else
	not_ok sources-proc-dd-exact "pcl stat -x, -e proc/syscw/,proc/wchar/ -- ${DD[*]}: exit $RC," \
		"syscw '$syscw' (want 100: count=100), wchar '$wchar' (want 409600: 100 x 4096)" \
		"$(show "$TMP/dd.err")"
fi

# perf's CSV: value,unit,event,run time,percentage,,  (empty unit for counts)
row_w=$(csv_row "$TMP/dd.err" proc/wchar/)
row_s=$(csv_row "$TMP/dd.err" proc/syscw/)
if [[ "$row_w" =~ ^409600,bytes,proc/wchar/,[0-9]+,100\.00,, ]] &&
	[[ "$row_s" =~ ^100,,proc/syscw/,[0-9]+,100\.00,, ]]; then
	ok sources-csv-units
else
	not_ok sources-csv-units "want '409600,bytes,proc/wchar/,RUN,100.00,,' and '100,,proc/syscw/,RUN,100.00,,':" \
		"got '$row_w'" "got '$row_s'"
fi

run plain "$PCL" stat -e proc/wchar/,proc/rss-hwm/ -- "${DD[@]}"
w=$(plain_count "$TMP/plain.err" proc/wchar/)
if [ $RC -eq 0 ] && [ "$w" = 409600 ] && grep -qE '^ +[0-9,]+ bytes +proc/wchar/' "$TMP/plain.err" &&
	grep -qE '^ +[0-9,]+ kB +proc/rss-hwm/' "$TMP/plain.err"; then
	ok sources-plain-units
else
	not_ok sources-plain-units "plain pcl stat: want '409600 bytes proc/wchar/' and 'N kB proc/rss-hwm/':" \
		"$(show "$TMP/plain.err")"
fi

run json "$PCL" stat -j -e proc/wchar/ -- "${DD[@]}"
if [ $RC -eq 0 ] && grep -qE '"counter-value" : "409600(\.0+)?".*"unit" : "bytes".*"event" : "proc/wchar/"' "$TMP/json.err"; then
	ok sources-json
else
	not_ok sources-json "pcl stat -j: want counter-value 409600, unit bytes, event proc/wchar/:" "$(show "$TMP/json.err")"
fi

# Several runs: each one's workload is a new process; every run exact.
run rep "$PCL" stat -r 3 -x, -e proc/syscw/ -- dd if=/dev/zero of="$TMP/dd.out" bs=512 count=10 status=none
row=$(csv_row "$TMP/rep.err" proc/syscw/)
if [ $RC -eq 0 ] && [[ "$row" =~ ^10,,proc/syscw/,0\.00%, ]]; then
	ok sources-repeat-exact
else
	not_ok sources-repeat-exact "pcl stat -r 3: want mean 10 and 0.00% variation: '$row'" "$(show "$TMP/rep.err")"
fi

# Children: a shell's reaped children count in its I/O, as with perf's
# inherited counters; print intervals add up to the whole.
run iv "$PCL" stat -I 100 -x, -e proc/syscw/ -- sh -c \
	"dd if=/dev/zero of=$TMP/a bs=1k count=30 status=none; sleep 0.3; dd if=/dev/zero of=$TMP/b bs=1k count=70 status=none"
sum=$(awk -F, '$4 == "proc/syscw/" && $2 ~ /^[0-9]+$/ { s += $2; n++ } END { if (n) print s }' "$TMP/iv.err")
if [ $RC -eq 0 ] && [ "$sum" = 100 ]; then
	ok sources-interval-children
else
	not_ok sources-interval-children "pcl stat -I 100 on sh running two dd (30 + 70 writes): intervals sum to '$sum', want 100:" \
		"$(show "$TMP/iv.err" 20)"
fi

# --- mixed with kernel events in one run, one group too ---------------------
run mix "$PCL" stat -x, -e "proc/syscw/,task-clock,psi/cpu-some/,cycles,$POWER/energy-pkg/,{page-faults,proc/wchar/}" -- "${DD[@]}"
tc=$(csv_count "$TMP/mix.err" task-clock)
pf=$(csv_count "$TMP/mix.err" page-faults)
miss=""
for ev in proc/syscw/ task-clock psi/cpu-some/ cycles "$POWER/energy-pkg/" page-faults proc/wchar/; do
	[ -n "$(csv_row "$TMP/mix.err" "$ev")" ] || miss="$miss $ev"
done
if [ $RC -eq 0 ] && [ -z "$miss" ] && [ "$(csv_count "$TMP/mix.err" proc/syscw/)" = 100 ] &&
	[ "$(csv_count "$TMP/mix.err" proc/wchar/)" = 409600 ] &&
	[[ "$tc" =~ ^[0-9.]+$ ]] && [[ "$pf" =~ ^[0-9]+$ ]] && ! crashed "$TMP/mix.err" $RC; then
	ok sources-mixed-with-kernel
else
	not_ok sources-mixed-with-kernel "exit $RC; rows missing:${miss:- none}; want syscw 100, wchar 409600, task-clock and page-faults counted:" \
		"$(show "$TMP/mix.err" 20)"
fi

# --- psi/ -------------------------------------------------------------------
if [ -r /proc/pressure/cpu ]; then
	run psi "$PCL" stat -x, -e psi/cpu-some/,psi/memory-some/,psi/io-full/ -- sleep 0.1
	bad=""
	for ev in psi/cpu-some/ psi/memory-some/ psi/io-full/; do
		[[ "$(csv_row "$TMP/psi.err" "$ev")" =~ ^[0-9]+,us,$ev,[0-9]+, ]] || bad="$bad $ev"
	done
	# pressure time is wall time: no more than the run, in microseconds
	v=$(csv_count "$TMP/psi.err" psi/cpu-some/)
	if [ $RC -eq 0 ] && [ -z "$bad" ] && [ "${v:-999999999}" -le 5000000 ]; then
		ok sources-psi-rows
	else
		not_ok sources-psi-rows "want 'N,us,psi/...,RUN,' rows (bad:${bad:- none}), cpu-some '$v' <= 5 s:" "$(show "$TMP/psi.err")"
	fi
else
	skip sources-psi-rows "no /proc/pressure on this machine (kernel without CONFIG_PSI)"
fi
if [ ! -e /proc/pressure/irq ]; then
	run irq "$PCL" stat -x, -e psi/irq-full/,task-clock -- true
	if [ $RC -eq 0 ] && [ "$(csv_row "$TMP/irq.err" psi/irq-full/)" = "<not supported>,us,psi/irq-full/,0,100.00,," ]; then
		ok sources-psi-missing-not-supported
	else
		not_ok sources-psi-missing-not-supported "no /proc/pressure/irq here: want '<not supported>,us,psi/irq-full/,0,100.00,,':" \
			"$(show "$TMP/irq.err")"
	fi
else
	skip sources-psi-missing-not-supported "this machine has /proc/pressure/irq"
fi

# --- power/ -------------------------------------------------------------------
run pw "$PCL" stat -x, -e "$POWER/energy-pkg/,$POWER/energy-ram/,task-clock" -- sleep 0.05
row=$(csv_row "$TMP/pw.err" "$POWER/energy-pkg/")
if have_rapl; then
	if [ $RC -eq 0 ] && [[ "$row" =~ ^[0-9.]+,Joules,$POWER/energy-pkg/, ]]; then
		ok sources-power-row
	else
		not_ok sources-power-row "RAPL zones here: want 'N,Joules,$POWER/energy-pkg/,...': '$row'" "$(show "$TMP/pw.err")"
	fi
	skip sources-power-not-supported "this machine has RAPL zones in /sys/class/powercap"
else
	if [ $RC -eq 0 ] && [ "$row" = "<not supported>,Joules,$POWER/energy-pkg/,0,100.00,," ] &&
		[[ "$(csv_count "$TMP/pw.err" task-clock)" =~ ^[0-9.]+$ ]]; then
		ok sources-power-not-supported
	else
		not_ok sources-power-not-supported "no /sys/class/powercap here: want '<not supported>,Joules,$POWER/energy-pkg/,0,100.00,,' and task-clock counted:" \
			"$(show "$TMP/pw.err")"
	fi
	# the reason: once on pcl stat's stderr, and in the event's description in pcl list
	if [ "$(grep -cF "pcl: $POWER/energy-pkg/: no RAPL zone in /sys/class/powercap on this machine" "$TMP/pw.err")" = 1 ]; then
		ok sources-power-stat-reason
	else
		not_ok sources-power-stat-reason "pcl stat: want the reason once on stderr:" "$(show "$TMP/pw.err")"
	fi
	run pl "$PCL" list --json
	if grep -qF "\"name\": \"$POWER/energy-pkg/\"" "$TMP/pl.out" &&
		grep -F "\"name\": \"$POWER/energy-pkg/\"" "$TMP/pl.out" |
		grep -qF 'not available here: no RAPL zone in /sys/class/powercap on this machine'; then
		ok sources-power-reason
	else
		not_ok sources-power-reason "pcl list --json: want the reason in $POWER/energy-pkg/'s description:" \
			"$(grep -F "$POWER/" "$TMP/pl.out" | head -3)"
	fi
	skip sources-power-row "no RAPL zone in /sys/class/powercap on this machine"
fi

# --- where a source does not apply, and names that do not exist --------------
run sw "$PCL" stat -a -x, -e proc/wchar/,cpu-clock -- sleep 0.05
if [ $RC -eq 0 ] && [ "$(csv_row "$TMP/sw.err" proc/wchar/)" = "<not supported>,bytes,proc/wchar/,0,100.00,," ]; then
	ok sources-proc-system-wide-not-supported
else
	not_ok sources-proc-system-wide-not-supported "pcl stat -a -e proc/wchar/: want '<not supported>,bytes,proc/wchar/,0,100.00,,':" \
		"$(show "$TMP/sw.err")"
fi

for spec in proc/nosuch/ psi/cpu-sum/ "$POWER/energy-foo/" procc/wchar/; do
	run bad "$PCL" stat -e "$spec" -- true
	n=$(grep -c . "$TMP/bad.err")
	word=${spec%/}
	word=${word#*/}
	[ "$spec" = procc/wchar/ ] && word=procc
	if [ $RC -eq 2 ] && [ "$n" -eq 1 ] && grep -q "^pcl: .*'$word'" "$TMP/bad.err" && ! crashed "$TMP/bad.err" $RC; then
		ok "sources-bad-name-${spec//\//_}"
	else
		not_ok "sources-bad-name-${spec//\//_}" "pcl stat -e $spec: exit $RC (want 2), $n lines (want one 'pcl: ...' naming '$word'):" \
			"$(show "$TMP/bad.err")"
	fi
done

# --- pcl list ------------------------------------------------------------------
run list "$PCL" list pmu
miss=""
for ev in proc/rchar/ proc/wchar/ proc/syscr/ proc/syscw/ proc/read_bytes/ proc/write_bytes/ \
	proc/cancelled_write_bytes/ proc/voluntary-ctxt-switches/ proc/nonvoluntary-ctxt-switches/ \
	proc/rss-hwm/ psi/cpu-some/ psi/cpu-full/ psi/memory-some/ psi/memory-full/ psi/io-some/ \
	psi/io-full/ psi/irq-full/ "$POWER/energy-pkg/" "$POWER/energy-cores/" "$POWER/energy-gpu/" \
	"$POWER/energy-ram/" "$POWER/energy-psys/"; do
	grep -qE "^ +$ev +\[User-space event" "$TMP/list.out" || miss="$miss $ev"
done
run lj "$PCL" list --json
nodesc=$(grep -oE '\{"name": "(proc|psi|power|powercap)/[^}]*\}' "$TMP/lj.out" | grep -vc '"description": "')
if [ -z "$miss" ] && [ "$nodesc" = 0 ]; then
	ok sources-list
else
	not_ok sources-list "pcl list pmu lacks:${miss:- nothing}; $nodesc of them without a description in --json"
fi
