#!/usr/bin/env bash
# Threads and child processes in pcl record's file: perf script shows every
# thread under its own tid, its process's pid and the name it gave itself,
# and every child, exec'd or not, under its pid and name; the names are the
# ones perf record sees for the same workload. With -i, nothing is
# inherited.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-threads "perf is not installed"
	exit 0
fi
if ! has_record; then
	not_ok record-threads-command "'$PCL' help lists no record command"
	exit 0
fi
threads=$(workload threads) || { not_ok record-threads-workload "cannot build tests/workloads/threads.c"; exit 0; }
forks=$(workload forks) || { not_ok record-threads-workload "cannot build tests/workloads/forks.c"; exit 0; }

# rec TAG TOOL ARGS...: "TOOL record -o $TMP/TAG.data ARGS"; stdout (the
# workload's list) in $TMP/TAG.out; ok-or-not line only on failure; false if
# the recording failed.
rec() {
	local tag=$1 tool=$2
	shift 2
	run_long "$tag" 40 "$tool" record -o "$TMP/$tag.data" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$tag.err" "$RC"; then
		not_ok "record-threads-$tag" "$tool record -o FILE $*: exit $RC (want 0); stderr:" "$(show "$TMP/$tag.err")"
		return 1
	fi
}
# samples FILE: "COMM PID TID" for each sample (comms have no blanks here).
samples() { perf script -F comm,pid,tid -i "$1" 2>/dev/null | awk '{ split($2, a, "/"); print $1, a[1], a[2] }'; }
# busy_comms FILE: the comms with at least 20 samples, sorted, one a line.
busy_comms() { samples "$1" | awk '{ n[$1]++ } END { for (c in n) if (n[c] >= 20) print c }' | sort; }
# comm_events FILE: the names set by COMM events, sorted, unique, without
# the recorder's own (perf-exec, pcl...).
comm_events() {
	perf script --show-task-events -F comm,pid,tid -i "$1" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_COMM\( exec\)\{0,1\}: \(.*\):[0-9]*\/[0-9]*$/\2/p' |
		grep -vE '^(perf-exec|pcl)' | sort -u
}
# same_sets NAME WHAT PCL_FILE PERF_FILE: ok if the two lists are equal.
same_sets() {
	if cmp -s "$3" "$4"; then
		ok "$1"
	else
		not_ok "$1" "$2 differ (pcl's file vs perf's):" "$(diff "$3" "$4" | grep '^[<>]')"
	fi
}

# --- threads ----------------------------------------------------------------------
N=4
if rec thr "$PCL" -- "$threads" $N 400 list && rec thrp perf -- "$threads" $N 400 list; then
	samples "$TMP/thr.data" | sort | uniq -c >"$TMP/thr.samples"
	missing=()
	nthr=0
	while read -r pid tid name; do
		[ "$name" = main ] && continue
		nthr=$((nthr + 1))
		n=$(awk -v c="$name" -v p="$pid" -v t="$tid" '$2 == c && $3 == p && $4 == t { print $1 }' "$TMP/thr.samples")
		[ "${n:-0}" -ge 20 ] || missing+=("$name pid $pid tid $tid: ${n:-0} samples (want >= 20 of ~1600)")
	done <"$TMP/thr.out"
	if [ "$nthr" -eq $N ] && [ ${#missing[@]} -eq 0 ]; then
		ok record-threads-tids
	else
		not_ok record-threads-tids "threads $N 400 list printed $nthr threads (want $N);" "${missing[@]}" \
			"perf script -F comm,pid,tid on pcl's file, counted:" "$(show "$TMP/thr.samples" 12)"
	fi
	# Samples from several CPUs at once: perf orders them without a
	# complaint (no "out of order events"), and decodes every record.
	perf_reads_clean record-threads-report-clean threp perf report --stdio -i "$TMP/thr.data"
	perf_reads_clean record-threads-dump-clean thdump perf report -D -i "$TMP/thr.data"
	busy_comms "$TMP/thr.data" >"$TMP/thr.comms"
	busy_comms "$TMP/thrp.data" >"$TMP/thrp.comms"
	same_sets record-threads-comms-vs-perf "comms with >= 20 samples" "$TMP/thr.comms" "$TMP/thrp.comms"
	comm_events "$TMP/thr.data" >"$TMP/thr.cev"
	comm_events "$TMP/thrp.data" >"$TMP/thrp.cev"
	same_sets record-threads-comm-events-vs-perf "names of PERF_RECORD_COMM events" "$TMP/thr.cev" "$TMP/thrp.cev"
fi

# --- child processes, exec'd or not ----------------------------------------------------
if rec fk "$PCL" -- "$forks" 3 150 list && rec fkp perf -- "$forks" 3 150 list; then
	samples "$TMP/fk.data" | sort | uniq -c >"$TMP/fk.samples"
	missing=()
	nch=0
	while read -r pid name; do
		[ "$name" = main ] && continue
		nch=$((nch + 1))
		n=$(awk -v c="$name" -v p="$pid" '$2 == c && $3 == p && $4 == p { print $1 }' "$TMP/fk.samples")
		[ "${n:-0}" -ge 20 ] || missing+=("$name pid $pid: ${n:-0} samples (want >= 20 of ~600)")
	done <"$TMP/fk.out"
	if [ "$nch" -eq 3 ] && [ ${#missing[@]} -eq 0 ]; then
		ok record-threads-children
	else
		not_ok record-threads-children "forks 3 150 list printed $nch children (want 3);" "${missing[@]}" \
			"perf script -F comm,pid,tid on pcl's file, counted:" "$(show "$TMP/fk.samples" 12)"
	fi
	perf_reads_clean record-threads-children-report-clean fkrep perf report --stdio -i "$TMP/fk.data"
	busy_comms "$TMP/fk.data" >"$TMP/fk.comms"
	busy_comms "$TMP/fkp.data" >"$TMP/fkp.comms"
	same_sets record-threads-children-comms-vs-perf "comms with >= 20 samples" "$TMP/fk.comms" "$TMP/fkp.comms"
	comm_events "$TMP/fk.data" >"$TMP/fk.cev"
	comm_events "$TMP/fkp.data" >"$TMP/fkp.cev"
	same_sets record-threads-children-comm-events-vs-perf "names of PERF_RECORD_COMM events" "$TMP/fk.cev" "$TMP/fkp.cev"
	# FORK and EXIT events: one each per child, as perf records them.
	tasks() { perf script --show-task-events -i "$1" 2>/dev/null | grep -oE 'PERF_RECORD_(FORK|EXIT)' | sort | uniq -c | tr -s ' '; }
	tp=$(tasks "$TMP/fk.data")
	tf=$(tasks "$TMP/fkp.data")
	if [ "$tp" = "$tf" ] && [ -n "$tp" ]; then
		ok record-threads-task-events
	else
		not_ok record-threads-task-events "FORK/EXIT events in perf script --show-task-events (forks 3 150):" \
			"pcl's file: $(tr "\n" " " <<<"$tp")" "perf's file: $(tr "\n" " " <<<"$tf")"
	fi
fi

# --- -i / --no-inherit: the children and threads are not followed ---------------------------
for opt in -i --no-inherit; do
	if rec noinh "$PCL" "$opt" -- "$forks" 2 150 list; then
		parent=$(awk '$2 == "main" { print $1 }' "$TMP/noinh.out")
		others=$(samples "$TMP/noinh.data" | awk -v p="$parent" '$2 != p' | sort | uniq -c)
		if [ -n "$parent" ] && [ -z "$others" ]; then
			ok "record-threads-no-inherit$opt"
		else
			not_ok "record-threads-no-inherit$opt" "pcl record $opt -- forks 2 150: want samples of pid $parent only; others:" \
				"$others"
		fi
	fi
done
