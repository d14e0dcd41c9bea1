#!/usr/bin/env bash
# pcl evlist prints what perf evlist prints, byte for byte, for the same
# perf.data file: files recorded by perf and by pcl record, with several
# events, a group, a tracepoint, a modifier, a period instead of a
# frequency, a perf stat record file, and with each of no option, -v, -F,
# -g and --trace-fields.
# pcl runs through a link named perf, so that its tip line names perf as
# perf's does. Streams (pipe mode), where perf 6.1 knows less than the
# stream says (README: pcl evlist), are checked against what they carry:
#   evlist-pipe-*   the names (and groups) pcl reads from perf's stream
#                   are those perf evlist gives the same recording made as a
#                   file; -v's attrs are those perf prints for the stream;
#   evlist-stdin    with no -i, a pipe on standard input is read;
#   evlist-errors   a missing file, and -g with -v, are one-line errors.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip evlist "perf is not installed"
	exit 0
fi
mkdir -p "$TMP/shim"
ln -s "$PCL" "$TMP/shim/perf"
SHIM=$TMP/shim/perf
TP=sched:sched_switch
[ -d /sys/kernel/tracing/events/sched ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

rec() { # NAME RECORDER ARGS...
	local name=$1 by=$2
	shift 2
	if ! $by record -q -o "$TMP/$name.data" "$@" -- sleep 0.05 >"$TMP/$name.rec" 2>&1; then
		not_ok "evlist-record-$name" "$by record $* failed" "$(show "$TMP/$name.rec")"
		return 1
	fi
}

files=()
rec perf-group perf -e '{cpu-clock,task-clock}' -e $TP -e page-faults:u -F 99 && files+=(perf-group)
rec perf-g perf -e cpu-clock -e task-clock -g && files+=(perf-g)
rec perf-period perf -e dummy -e cpu-clock:k -c 100000 && files+=(perf-period)
rec pcl-group "$PCL" -e '{cpu-clock,task-clock}' -e $TP -e page-faults:u -g && files+=(pcl-group)
rec pcl-period "$PCL" -e cpu-clock:u -e task-clock -c 50000 && files+=(pcl-period)
# a perf stat record file: counting events, no samples
perf stat record -o "$TMP/perf-stat.data" -e task-clock,page-faults -- true >/dev/null 2>&1 &&
	files+=(perf-stat)

for f in "${files[@]}"; do
	for opt in "" -v -F -g --trace-fields "-v --trace-fields" "-F --trace-fields"; do
		name="evlist-$f${opt:+-}$(echo "$opt" | tr -d ' -')"
		# shellcheck disable=SC2086
		perf evlist -i "$TMP/$f.data" $opt >"$TMP/p.out" 2>"$TMP/p.err"
		# shellcheck disable=SC2086
		"$SHIM" evlist -i "$TMP/$f.data" $opt >"$TMP/q.out" 2>"$TMP/q.err"
		rc=$?
		if [ $rc -ne 0 ] || [ -s "$TMP/q.err" ]; then
			not_ok "$name" "pcl evlist $opt: exit $rc" "$(show "$TMP/q.err")"
		elif [ ! -s "$TMP/p.out" ]; then
			not_ok "$name" "perf evlist printed nothing" "$(show "$TMP/p.err")"
		else
			diff_or_ok "$name" "$TMP/p.out" "$TMP/q.out" "perf evlist $opt" "pcl evlist $opt"
		fi
	done
done

# A tip that names the command the user ran.
"$PCL" evlist -i "$TMP/perf-group.data" >"$TMP/tip.out" 2>&1
if grep -q "^# Tip: use 'pcl evlist --trace-fields'" "$TMP/tip.out"; then
	ok evlist-tip-pcl
else
	not_ok evlist-tip-pcl "pcl evlist (not through a link named perf) should suggest 'pcl evlist'" \
		"$(show "$TMP/tip.out")"
fi

# Streams: perf's stream of the group recording; the names pcl reads from it
# are those perf gives the file recording (perf 6.1 itself says 'unknown
# tracepoint' and loses the group of a stream).
perf record -q -o - -e '{cpu-clock,task-clock}' -e $TP -e page-faults:u -F 99 -- sleep 0.05 \
	>"$TMP/perf-pipe.data" 2>"$TMP/pipe.rec"
for opt in "" -g; do
	name=evlist-pipe${opt:+-g}
	perf evlist -i "$TMP/perf-group.data" $opt | grep -v '^# Tip' >"$TMP/p.out"
	"$SHIM" evlist -i "$TMP/perf-pipe.data" $opt 2>"$TMP/q.err" | grep -v '^# Tip' >"$TMP/q.out"
	diff_or_ok "$name" "$TMP/p.out" "$TMP/q.out" "perf evlist $opt (file)" "pcl evlist $opt (stream)"
done
# -v: the attrs of the stream as perf prints them (the names were compared above)
perf evlist -i "$TMP/perf-pipe.data" -v 2>/dev/null | sed 's/^.*: type: /type: /' \
	| grep -v '^# Tip' >"$TMP/p.out"
"$SHIM" evlist -i "$TMP/perf-pipe.data" -v 2>"$TMP/q.err" | sed 's/^.*: type: /type: /' \
	| grep -v '^# Tip' >"$TMP/q.out"
diff_or_ok evlist-pipe-v "$TMP/p.out" "$TMP/q.out" "perf evlist -v (stream)" "pcl evlist -v (stream)"

cat "$TMP/perf-pipe.data" | "$SHIM" evlist >"$TMP/stdin.out" 2>&1
if [ "$(head -3 "$TMP/stdin.out" | tr '\n' ' ')" = "cpu-clock task-clock $TP " ]; then
	ok evlist-stdin
else
	not_ok evlist-stdin "pcl evlist < stream" "$(show "$TMP/stdin.out")"
fi

# pcl's own stream, read by perf: the same attrs (perf names them itself)
"$PCL" record -q -o - -e cpu-clock -e task-clock -- sleep 0.05 >"$TMP/pcl-pipe.data" 2>/dev/null
perf evlist -v -i "$TMP/pcl-pipe.data" >"$TMP/p.out" 2>&1
"$SHIM" evlist -v -i "$TMP/pcl-pipe.data" >"$TMP/q.out" 2>&1
diff_or_ok evlist-pcl-pipe-v "$TMP/p.out" "$TMP/q.out" "perf evlist -v" "pcl evlist -v"

# errors
cd "$TMP" || exit 1
"$PCL" evlist -i "$TMP/nonexistent.data" >"$TMP/e1.out" 2>"$TMP/e1.err"
rc1=$?
"$PCL" evlist -i "$TMP/perf-group.data" -g -v >"$TMP/e2.out" 2>"$TMP/e2.err"
rc2=$?
if [ $rc1 -ne 0 ] && [ $rc2 -ne 0 ] && [ "$(wc -l <"$TMP/e1.err")" -eq 1 ] &&
	[ "$(wc -l <"$TMP/e2.err")" -eq 1 ] && [ ! -s "$TMP/e1.out" ] && [ ! -s "$TMP/e2.out" ] &&
	grep -q nonexistent "$TMP/e1.err"; then
	ok evlist-errors
else
	not_ok evlist-errors "missing file: exit $rc1, -g -v: exit $rc2" "$(show "$TMP/e1.err")" \
		"$(show "$TMP/e2.err")"
fi
