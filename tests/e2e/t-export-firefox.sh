#!/usr/bin/env bash
# pcl report --format=firefox writes the Firefox Profiler's Gecko profile
# format (version 32, see lib/output/firefox.c): firefox-check.py checks
# its structure against the documented format (every table's schema, every
# index pointing where it must, sample times in order, markers' start <=
# end); it holds every sample of the file (as many as pcl report --stats
# counts), each thread's as pcl script counts them per pid/tid; the hot
# workload's leaf is a function of its thread; and a recording with
# context switches (pcl or perf record --switch-events) gives off-CPU
# markers, among them the main thread blocked waiting for its workers; and
# meta.startTime is the date the recording was made.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
check_py=$here/firefox-check.py
version=32
if ! command -v python3 >/dev/null 2>&1; then
	skip export-firefox "python3 is not installed"
	exit 0
fi

word() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# export_case ID FILE [FUNC]: the export of FILE, checked; the checker's
# output is left in $TMP/ID.chk. False when it cannot go on.
export_case() {
	local id=$1 f=$2 func=${3:-} out n stats
	out=$TMP/$id.json
	run_long "$id.ff" 60 "$PCL" report -i "$f" --format=firefox -o "$out"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$id.ff.err" "$RC" || [ ! -s "$out" ]; then
		not_ok "export-firefox-$id" "pcl report --format=firefox: exit $RC (want 0)" "$(show "$TMP/$id.ff.err")"
		return 1
	fi
	if ! python3 "$check_py" "$out" "$version" $func >"$TMP/$id.chk" 2>&1; then
		not_ok "export-firefox-$id-structure" "firefox-check.py $out $version:" "$(show "$TMP/$id.chk" 20)"
		return 1
	fi
	ok "export-firefox-$id-structure"
	n=$(word "$(head -1 "$TMP/$id.chk")" samples)
	stats=$("$PCL" report --stats -i "$f" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
	if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$stats" ]; then
		ok "export-firefox-$id-count"
	else
		not_ok "export-firefox-$id-count" "samples: firefox ${n:-none}, pcl report --stats ${stats:-none} (want equal, > 0)"
	fi
	# per thread (pid/tid): the samples pcl script shows for it
	awk -F'\t' '$1 == "thread" && $3 > 0 { print $2, $3 }' "$TMP/$id.chk" | sort >"$TMP/$id.threads"
	"$PCL" script -F pid,tid -i "$f" 2>/dev/null | awk '{ print $1 }' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort >"$TMP/$id.script"
	diff_or_ok "export-firefox-$id-threads" "$TMP/$id.script" "$TMP/$id.threads" \
		"pcl script -F pid,tid | uniq -c" "firefox threads with samples"
}

# markers ID: off-CPU markers, at least one of them the thread blocked.
markers() {
	local id=$1 words
	words=$(head -1 "$TMP/$id.chk")
	if [ "$(word "$words" markers)" -gt 0 ] && [ "$(word "$words" blocked)" -gt 0 ]; then
		ok "export-firefox-$id-markers"
	else
		not_ok "export-firefox-$id-markers" "want context-switch markers, some of a blocked thread: $words"
	fi
}

hot=$(workload hot)
threads=$(workload threads)
if record_to export-firefox pcl hot-pcl -g -F 2000 -o "$TMP/hot-pcl.data" -- "$hot" 300 &&
	export_case hot-pcl "$TMP/hot-pcl.data" hot_leaf; then
	in=$(word "$(head -1 "$TMP/hot-pcl.chk")" in)
	if [ "$in" = hot ]; then
		ok export-firefox-hot-pcl-leaf
	else
		not_ok export-firefox-hot-pcl-leaf "want hot_leaf among the functions of thread 'hot' only, found in: '$in'"
	fi
fi
if ! has_record || "$PCL" record --switch-events -q -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
	record_to export-firefox pcl switch-pcl --switch-events -g -F 2000 -o "$TMP/switch-pcl.data" \
		-- "$threads" 4 200 && export_case switch-pcl "$TMP/switch-pcl.data" && markers switch-pcl
else
	skip export-firefox-switch-pcl "this pcl record has no --switch-events"
fi
if ! have_perf; then
	skip export-firefox-switch-perf "perf is not installed"
else
	record_to export-firefox perf switch-perf --switch-events -g -F 2000 -o "$TMP/switch-perf.data" \
		-- "$threads" 4 200 && export_case switch-perf "$TMP/switch-perf.data" && markers switch-perf
fi

# meta.startTime is a date: within a minute of when the recording was made
# (not the time since boot), for pcl's and perf's files, with and without
# the CLOCK_DATA header that -k writes.
start_time() { # ID FILE WHEN
	local t
	if ! "$PCL" report -i "$2" --format=firefox -o "$TMP/$1.st.json" 2>"$TMP/$1.st.err"; then
		not_ok "export-firefox-$1-start" "pcl report --format=firefox failed" "$(show "$TMP/$1.st.err")"
		return
	fi
	t=$(python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["meta"]["startTime"] // 1000))' "$TMP/$1.st.json")
	if [ $((t - $3)) -gt -60 ] && [ $((t - $3)) -lt 60 ]; then
		ok "export-firefox-$1-start"
	else
		not_ok "export-firefox-$1-start" "meta.startTime says $(date -u -d "@$t" '+%F %T') UTC," \
			"the recording was made at $(date -u -d "@$3" '+%F %T') UTC (want within a minute)"
	fi
}
for by in pcl perf; do
	[ $by = pcl ] || have_perf || continue
	for k in "" "-k monotonic"; do
		id=start-$by${k:+-k}
		when=$(date +%s)
		# shellcheck disable=SC2086
		record_to export-firefox $by $id $k -F 1000 -o "$TMP/$id.data" -- "$hot" 100 &&
			start_time "$id" "$TMP/$id.data" "$when"
	done
done

# Without --switch-events: no markers.
if [ -s "$TMP/hot-pcl.chk" ]; then
	if [ "$(word "$(head -1 "$TMP/hot-pcl.chk")" markers)" = 0 ]; then
		ok export-firefox-no-switches
	else
		not_ok export-firefox-no-switches "a recording without switch events gave markers: $(head -1 "$TMP/hot-pcl.chk")"
	fi
fi

# A file with no sample at all (a period of a second of CPU time, a command
# that is over long before) still makes a whole, empty document.
if record_to export-firefox pcl empty -c 1000000000 -o "$TMP/empty.data" -- true; then
	run_long empty.ff 60 "$PCL" report -i "$TMP/empty.data" --format=firefox -o "$TMP/empty.json"
	if [ "$RC" -eq 0 ] && ! crashed "$TMP/empty.ff.err" "$RC" &&
		python3 "$check_py" "$TMP/empty.json" "$version" >"$TMP/empty.chk" 2>&1 &&
		[ "$(word "$(head -1 "$TMP/empty.chk")" samples)" = 0 ]; then
		ok export-firefox-empty
	else
		not_ok export-firefox-empty "pcl report --format=firefox of a file without samples: exit $RC" \
			"$(show "$TMP/empty.ff.err")" "$(show "$TMP/empty.chk")"
	fi
fi
