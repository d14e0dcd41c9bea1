#!/usr/bin/env bash
# pcl report --format=speedscope writes speedscope's file format: the
# document validates against the JSON schema speedscope ships
# (tests/browser/node_modules, fetched by scripts/npm-deps.sh) and
# speedscope-check.py's structural checks; it holds every sample of the
# file (as many as pcl report --stats counts; their periods sum to what the
# folded export sums, as pcl report's event count),
# one profile per thread with that thread's samples (as pcl script counts
# them per comm pid/tid), and the hot workload's leaf in most stacks. For
# files recorded by pcl and by perf.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
check_py=$here/speedscope-check.py
schema=$here/../browser/node_modules/speedscope/dist/release/file-format-schema.json
if ! command -v python3 >/dev/null 2>&1; then
	skip export-speedscope "python3 is not installed"
	exit 0
fi
schema_why=
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	schema_why="python3 has no jsonschema module (python3-jsonschema)"
elif [ ! -f "$schema" ]; then
	schema_why="no speedscope schema in tests/browser/node_modules (run scripts/npm-deps.sh)"
fi
schema_opt=()
[ -n "$schema_why" ] || schema_opt=(--schema "$schema")

# word WORDS KEY: the value of KEY=... in a line of words.
word() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# export ID FILE [FRAME]: the speedscope export of FILE, checked; the
# checker's output is left in $TMP/ID.chk. False when it cannot go on.
export_case() {
	local id=$1 f=$2 frame=${3:-} out words n stats folded events
	out=$TMP/$id.json
	run_long "$id.ss" 60 "$PCL" report -i "$f" --format=speedscope -o "$out"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$id.ss.err" "$RC" || [ ! -s "$out" ]; then
		not_ok "export-speedscope-$id" "pcl report --format=speedscope: exit $RC (want 0)" "$(show "$TMP/$id.ss.err")"
		return 1
	fi
	if [ -n "$schema_why" ]; then
		skip "export-speedscope-$id-schema" "$schema_why"
	elif python3 "$check_py" "$out" --schema "$schema" >"$TMP/$id.schema" 2>&1; then
		ok "export-speedscope-$id-schema"
	else
		not_ok "export-speedscope-$id-schema" "$out does not validate against $schema" "$(show "$TMP/$id.schema")"
	fi
	if ! python3 "$check_py" "$out" ${frame:+--frame "$frame"} >"$TMP/$id.chk" 2>&1; then
		not_ok "export-speedscope-$id-structure" "speedscope-check.py $out:" "$(show "$TMP/$id.chk")"
		return 1
	fi
	ok "export-speedscope-$id-structure"
	words=$(head -1 "$TMP/$id.chk")
	n=$(word "$words" samples)
	stats=$("$PCL" report --stats -i "$f" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
	folded=$("$PCL" report -i "$f" --format=folded 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
	events=$("$PCL" report --stdio -i "$f" 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | head -1)
	if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$stats" ] && [ "$folded" = "$events" ]; then
		ok "export-speedscope-$id-count"
	else
		not_ok "export-speedscope-$id-count" "samples: speedscope ${n:-none}, pcl report --stats ${stats:-none} (want equal, > 0);" \
			"periods: folded export $folded, pcl report's event count ${events:-none} (want equal)"
	fi
	# cpu-clock counts nanoseconds: the weights are the periods
	if [ "$(word "$words" units)" = nanoseconds ]; then
		ok "export-speedscope-$id-unit"
	else
		not_ok "export-speedscope-$id-unit" "cpu-clock samples: want unit nanoseconds, got '$(word "$words" units)'"
	fi
}

# hot_leaf ID: the hot workload's leaf is in about 80% of the stacks.
hot_leaf() {
	local id=$1 pct
	pct=$(word "$(head -1 "$TMP/$id.chk")" pct)
	if awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 55 && p <= 95) }'; then
		ok "export-speedscope-$id-hot-leaf"
	else
		not_ok "export-speedscope-$id-hot-leaf" "hot_leaf in ${pct:-no}% of the samples (want 55..95)"
	fi
}

# per_thread ID FILE: one profile per thread, "comm pid/tid", with the
# samples pcl script shows for it; and each thread the workload listed.
per_thread() {
	local id=$1 f=$2 missing=
	sed -n 's/^profile\t\(.*\)\t\([0-9]*\)$/\1 \2/p' "$TMP/$id.chk" | sort >"$TMP/$id.profiles"
	"$PCL" script -F comm,pid,tid -i "$f" 2>/dev/null | sed 's/^ *//; s/ *$//' | sort | uniq -c |
		awk '{ n = $1; $1 = ""; sub(/^ /, ""); print $0, n }' | sort >"$TMP/$id.script"
	diff_or_ok "export-speedscope-$id-threads" "$TMP/$id.script" "$TMP/$id.profiles" \
		"pcl script -F comm,pid,tid | uniq -c" "speedscope profiles"
	# the workload's "PID TID wl-thread-K" lines (its stdout went to the recorder's)
	while read -r pid tid name; do
		[ "$name" = main ] && continue
		grep -q "^$name $pid/$tid " "$TMP/$id.profiles" || missing="$missing $name($pid/$tid)"
	done <"$TMP/rec-$id.out"
	if [ -z "$missing" ] && [ "$(grep -c '^wl-thread-' "$TMP/$id.profiles")" -ge 4 ]; then
		ok "export-speedscope-$id-workers"
	else
		not_ok "export-speedscope-$id-workers" "want a profile for each of the 4 workers, missing:${missing:- (fewer listed)}" \
			"$(show "$TMP/$id.profiles")"
	fi
}

hot=$(workload hot)
threads=$(workload threads)
if record_to export-speedscope pcl hot-pcl -g -F 2000 -o "$TMP/hot-pcl.data" -- "$hot" 300 &&
	export_case hot-pcl "$TMP/hot-pcl.data" hot_leaf; then
	hot_leaf hot-pcl
fi
if ! have_perf; then
	skip export-speedscope-hot-perf "perf is not installed"
elif record_to export-speedscope perf hot-perf -g -F 2000 -o "$TMP/hot-perf.data" -- "$hot" 300 &&
	export_case hot-perf "$TMP/hot-perf.data" hot_leaf; then
	hot_leaf hot-perf
fi
if record_to export-speedscope pcl threads-pcl -g -F 2000 -o "$TMP/threads-pcl.data" -- "$threads" 4 200 list &&
	export_case threads-pcl "$TMP/threads-pcl.data"; then
	per_thread threads-pcl "$TMP/threads-pcl.data"
fi

# A file with no sample at all (a period of a second of CPU time, a command
# that is over long before) still makes a whole document, with no profile.
if record_to export-speedscope pcl empty -c 1000000000 -o "$TMP/empty.data" -- true; then
	run_long empty.ss 60 "$PCL" report -i "$TMP/empty.data" --format=speedscope -o "$TMP/empty.json"
	if [ "$RC" -eq 0 ] && ! crashed "$TMP/empty.ss.err" "$RC" &&
		python3 "$check_py" "$TMP/empty.json" "${schema_opt[@]}" >"$TMP/empty.chk" 2>&1 &&
		[ "$(word "$(head -1 "$TMP/empty.chk")" profiles)" = 0 ]; then
		ok export-speedscope-empty
	else
		not_ok export-speedscope-empty "pcl report --format=speedscope of a file without samples: exit $RC" \
			"$(show "$TMP/empty.ss.err")" "$(show "$TMP/empty.chk")"
	fi
fi
