#!/usr/bin/env bash
# Off-CPU time in every export (docs/offcpu.md). One pcl record --off-cpu
# of the offcpu workload; OFF = the offcpu-time periods and ON = the
# cpu-clock periods pcl script prints (ns). Then:
#   --event offcpu-time: folded values, speedscope weights and pprof's
#     nanoseconds add up to OFF; the flame graph's root is OFF ns; the HTML
#     page weighs by period, OFF ns in all; Firefox has one sample per ms
#     of it (no weights in the Gecko format);
#   --wall: the same formats hold ON + OFF, the "[off-CPU]" frames OFF;
#     Firefox's Off-CPU category has OFF / interval samples (+-3%), and
#     firefox-check.py passes; the HTML page's facts say ON and OFF;
#   Firefox, both: an Off-CPU marker (blocked) per offcpu-time sample.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
if ! has_record; then
	skip offcpu-export "this pcl has no record command"
	exit 0
fi
wl=$WORKLOADS/offcpu
if [ ! -x "$wl" ]; then
	skip offcpu-export "workload $wl not built (make tests)"
	exit 0
fi
if [ ! -r /sys/kernel/tracing/events/sched/sched_switch/format ] &&
	[ ! -r /sys/kernel/debug/tracing/events/sched/sched_switch/format ]; then
	skip offcpu-export "no sched:sched_switch tracepoint readable here (tracefs)"
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { skip offcpu-export "python3 is not installed"; exit 0; }

F=$TMP/off.data
run_long rec 60 "$PCL" record -N --off-cpu -g -o "$F" -- "$wl" 30 6 1
if [ "$RC" -ne 0 ] || [ ! -s "$F" ]; then
	not_ok offcpu-export-record "pcl record --off-cpu: exit $RC" "$(show "$TMP/rec.err")"
	exit 0
fi
"$PCL" script -i "$F" -F period,event >"$TMP/script" 2>/dev/null
OFF=$(awk '$2 == "offcpu-time:" { s += $1 } END { print s + 0 }' "$TMP/script")
ON=$(awk '$2 == "cpu-clock:" { s += $1 } END { print s + 0 }' "$TMP/script")
NOFF=$(awk '$2 == "offcpu-time:" { n++ } END { print n + 0 }' "$TMP/script")
if [ "$OFF" -le 0 ] || [ "$ON" -le 0 ]; then
	not_ok offcpu-export-record "no off-CPU ($OFF ns) or on-CPU ($ON ns) time in the file"
	exit 0
fi
ok offcpu-export-record

# same NAME GOT WANT: exact
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got ${2:-none}, want $3"; fi
}

for mode in event wall; do
	if [ $mode = event ]; then
		args="--event offcpu-time" want=$OFF
	else
		args="--wall" want=$((ON + OFF))
	fi
	# folded: values in ns
	"$PCL" report -i "$F" $args --format=folded -o "$TMP/$mode.folded" 2>"$TMP/$mode.folded.err"
	same "offcpu-export-$mode-folded" "$(awk '{ s += $NF } END { print s + 0 }' "$TMP/$mode.folded")" "$want"
	# speedscope: every profile's weights, in nanoseconds
	"$PCL" report -i "$F" $args --format=speedscope -o "$TMP/$mode.ss" 2>/dev/null
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sum(sum(p["weights"]) for p in d["profiles"]), ",".join(sorted({p["unit"] for p in d["profiles"]})))' "$TMP/$mode.ss")
	same "offcpu-export-$mode-speedscope" "$got" "$want nanoseconds"
	# pprof: the second value of each sample, nanoseconds
	if command -v protoc >/dev/null 2>&1; then
		"$PCL" report -i "$F" $args --format=pprof -o "$TMP/$mode.pprof" 2>/dev/null
		got=$(gzip -dc "$TMP/$mode.pprof" | protoc --proto_path="$here/../proto" \
			--decode=perftools.profiles.Profile profile.proto |
			awk '/^sample \{/ { n = 0 } /^  value:/ { if (++n == 2) s += $2 } END { print s + 0 }')
		same "offcpu-export-$mode-pprof" "$got" "$want"
	else
		skip "offcpu-export-$mode-pprof" "protoc is not installed"
	fi
	# flame graph: the root's title in ns
	"$PCL" report -i "$F" $args --format=flamegraph -o "$TMP/$mode.svg" 2>/dev/null
	same "offcpu-export-$mode-flamegraph" "$(grep -o '<title>all ([0-9]* ns' "$TMP/$mode.svg" | grep -o '[0-9]*')" "$want"
	# html: weighed by period, the total in ns
	"$PCL" report -i "$F" $args --format=html -o "$TMP/$mode.html" 2>/dev/null
	if grep -q "event period" "$TMP/$mode.html" && grep -q ">$want ns (" "$TMP/$mode.html"; then
		ok "offcpu-export-$mode-html"
	else
		not_ok "offcpu-export-$mode-html" "the page does not say 'event period' and '$want ns'"
	fi
done

# --wall: the page's facts say the time on and off CPU
want=$(awk -v on="$ON" -v off="$OFF" 'BEGIN { printf "%.3f ms on CPU (%.1f%%), %.3f ms off CPU", on / 1e6, 100 * on / (on + off), off / 1e6 }')
if grep -qF "wall time</dt><dd>" "$TMP/wall.html" && grep -qF "$want" "$TMP/wall.html"; then
	ok offcpu-export-wall-html-fact
else
	not_ok offcpu-export-wall-html-fact "the page has no 'wall time' fact saying '$want'" \
		"$(grep -o 'wall time</dt><dd>[^<]*' "$TMP/wall.html")"
fi

# --wall: the [off-CPU] leaves hold the off-CPU time
same offcpu-export-wall-folded-leaf "$(awk '$(NF-1) ~ /;\[off-CPU\]$/ { s += $NF } END { print s + 0 }' "$TMP/wall.folded")" "$OFF"
same offcpu-export-wall-flamegraph-leaf "$(grep -o '<title>\[off-CPU\] ([0-9]* ns' "$TMP/wall.svg" | grep -o '[0-9]*' | awk '{ s += $1 } END { print s + 0 }')" "$OFF"

# Firefox: no weights in the Gecko format, a sample per interval instead
for mode in event wall; do
	if [ $mode = event ]; then args="--event offcpu-time"; else args="--wall"; fi
	"$PCL" report -i "$F" $args --format=firefox -o "$TMP/$mode.ff" 2>"$TMP/$mode.ff.err"
	if ! python3 "$here/firefox-check.py" "$TMP/$mode.ff" 32 >"$TMP/$mode.chk" 2>&1; then
		not_ok "offcpu-export-$mode-firefox" "firefox-check.py:" "$(show "$TMP/$mode.chk")"
		continue
	fi
	iv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["interval"])' "$TMP/$mode.ff")
	words=$(head -1 "$TMP/$mode.chk")
	n=$(walk_get "$words" samples)
	[ $mode = wall ] && n=$(walk_get "$words" offcpu)
	# the time those samples stand for, against OFF
	got=$(awk -v n="$n" -v iv="$iv" 'BEGIN { printf "%.0f", n * iv * 1e6 }')
	if within "$got" "$OFF" 3; then
		ok "offcpu-export-$mode-firefox"
	else
		not_ok "offcpu-export-$mode-firefox" "$n off-CPU samples x ${iv} ms = $got ns, want $OFF (+-3%)" "$words"
	fi
	# no switch records in the file: each off-CPU interval is a blocked Off-CPU marker
	same "offcpu-export-$mode-firefox-markers" "$(walk_get "$words" markers) $(walk_get "$words" blocked)" "$NOFF $NOFF"
done

# json: offcpu-time is an event of its own, its event_count OFF
"$PCL" report -i "$F" --format=json -o "$TMP/r.json" 2>/dev/null
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(",".join(str(e["event_count"]) for e in d["events"] if e["name"] == "offcpu-time"))' "$TMP/r.json" 2>&1)
same offcpu-export-json "$got" "$OFF"

# Firefox caps one weighed sample at 100000 intervals (a file of sane size):
# a 1.5 s sleep with a 10 us on-CPU interval is cut to 1 s there, and that
# must not be silent (the Off-CPU share would be wrong without a word)
run_long reclong 60 "$PCL" record -N --off-cpu -g -e cpu-clock -c 10000 -o "$TMP/long.data" -- sleep 1.5
if [ "$RC" -ne 0 ]; then
	not_ok offcpu-export-firefox-cap "pcl record -c 10000 --off-cpu sleep 1.5: exit $RC" "$(show "$TMP/reclong.err")"
else
	"$PCL" report -i "$TMP/long.data" --wall --format=firefox -o "$TMP/long.ff" 2>"$TMP/long.ff.err"
	lo=$("$PCL" script -i "$TMP/long.data" -F period,event 2>/dev/null |
		awk '$2 == "offcpu-time:" { s += $1 } END { print s + 0 }')
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("%.0f" % (sum(len(t["samples"]["data"]) for t in d["threads"]) * d["meta"]["interval"] * 1e6))' "$TMP/long.ff" 2>&1)
	if [ "${got:-0}" -ge "$lo" ] 2>/dev/null || grep -q "1 off-CPU sample.*cut" "$TMP/long.ff.err"; then
		ok offcpu-export-firefox-cap
	else
		not_ok offcpu-export-firefox-cap "Firefox samples stand for $got ns of $lo ns off CPU, and no warning" "$(show "$TMP/long.ff.err")"
	fi
fi

# perf's own offcpu-time samples (BPF) have dummy times, ~0 << 32 and up:
# they weigh as any, but have no place on a timeline; the Firefox export
# must not put them (nor markers) 584 years after the recording
n=$(python3 "$here/offcpu-dummy-time.py" "$F" "$TMP/dummy.data" 2>&1)
if [ "${n:-0}" -ge 1 ] 2>/dev/null; then
	"$PCL" report -i "$TMP/dummy.data" --wall --format=firefox -o "$TMP/dummy.ff" 2>"$TMP/dummy.ff.err"
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
m = 0
for t in d["threads"]:
    m = max([m] + [s[1] for s in t["samples"]["data"]] + [x[2] or 0 for x in t["markers"]["data"]])
print("%.0f" % m)' "$TMP/dummy.ff" 2>&1)
	if [ "${got:-x}" -lt 600000 ] 2>/dev/null; then
		ok offcpu-export-firefox-perf-times
	else
		not_ok offcpu-export-firefox-perf-times "perf-style offcpu-time times: the profile's last time is $got ms (want < 600 s)" "$(show "$TMP/dummy.ff.err")"
	fi
else
	not_ok offcpu-export-firefox-perf-times "offcpu-dummy-time.py: $n"
fi
