#!/usr/bin/env bash
# How fast pcl report reads a big perf.data next to perf report, and how much
# memory it takes. Printed, not asserted; not part of `make check`. The aim:
# at least 10 times faster than perf report --stdio, with no more memory.
#
#   bench/report.sh [BUILD]        BUILD defaults to build/
#   N=1 bench/report.sh            one timed run per case (default best of 3)
#   RERECORD=1 bench/report.sh     record the big files again
#
# The files: python3 (/usr/bin/python3, not a pyenv shim) running a
# pure-Python CPU benchmark (nested calls, complex arithmetic, sorting with a
# key, dicts and strings, a few system calls), one copy per CPU, sampled with
# call chains at the highest frequency the kernel allows (-g -F max) until
# each copy has used DUR seconds of CPU, by default what gives SAMPLES
# (default 1000000) samples at that frequency (5 s at 100000 Hz with 2 CPUs):
# if the file holds fewer than 80% of SAMPLES, it records once more for
# longer (at most MAX_DUR, 60 s). One file is recorded by perf record, one
# by pcl record (if it works); both are kept in $BENCH_DIR (default
# /tmp/pcl-bench, about 300 MB) and reused by later runs unless RERECORD=1
# (or the workload script changed).
# Sample counts come from perf report --stats.
#
# Each file is reported in the default (children) mode and with
# --no-children, by perf report --stdio and pcl report --stdio, N rounds
# with the two tools in alternating order; the table shows the round with
# the lowest wall time:
#   wall s      elapsed time
#   cpu s       user + system CPU time
#   peak MiB    peak resident set (maxrss; counts the file's pages a tool
#               maps and touches, as the kernel does)
#   lines       lines of report written (output goes to a file, not
#               /dev/null, so that a fast but empty report shows)
# and, per case, perf/pcl for time (the speed-up; above 10 is the aim) and
# pcl/perf for memory (at most 1 is the aim). Times and peak memory come
# from a small wait4() wrapper built here (or /usr/bin/time without a
# compiler); a report taking over TIMEOUT (600) s is stopped and shows as
# failed. If pcl has no report command yet, only perf is timed.
# PYTHON, DUR, SAMPLES, COPIES (default: one per CPU) and FREQ change the
# recording.
# Exits 1 only if perf or python3 is missing or no file can be recorded.
#
# bench/unwind.sh runs this on --call-graph dwarf files: TAG names the files
# (TOOL-TAG.data, default g), REC_CG the recording's call-graph option,
# MODES the cases (default "children no-children"), PERF_OPTS options for
# perf report only (--no-inline: perf's output is then pcl's).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=common.sh
. bench/common.sh "$@"
N=${N:-3}
TAG=${TAG:-g}
read -r -a modes <<<"${MODES:-children no-children}"
read -r -a perf_opts <<<"${PERF_OPTS:-}"

files=()
record perf "$BENCH_DIR/perf-$TAG.data" && files+=("perf-$TAG")
if pcl_has record; then
	record pcl "$BENCH_DIR/pcl-$TAG.data" && files+=("pcl-$TAG")
else
	echo "bench: '$PCL' has no record command; only perf's file is used" >&2
fi
[ ${#files[@]} -gt 0 ] || die "no file to report on"

tools=(perf)
pcl_note=""
if ! pcl_has report; then
	if [ $have_pcl = 0 ]; then
		pcl_note="'$PCL' not found (run 'make'): only perf report is timed"
	else
		pcl_note="'$PCL' has no report command yet: only perf report is timed"
	fi
else
	tools+=(pcl)
fi
[ -n "$pcl_note" ] && echo "bench: $pcl_note" >&2

# run TOOL FILE MODE ROUND: one timed report; appends
# "WALL CPU MAXRSS_KIB LINES STATUS" to $TMP/FILE.MODE.TOOL.res
run() {
	local tool=$1 file=$2 mode=$3 bin st lines
	local -a opt=()
	[ "$tool" = perf ] && bin=$PERF || bin=$PCL
	[ "$tool" = perf ] && opt=("${perf_opts[@]}")
	case $mode in
	no-children) opt+=(--no-children) ;;
	esac
	rm -f "$TMP/t.out"
	"${TIMER[@]}" "$TMP/t.out" "${TO[@]}" "$bin" report --stdio "${opt[@]}" -i "$BENCH_DIR/$file.data" \
		>"$TMP/report.out" 2>"$TMP/report.err"
	st=$?
	lines=$(wc -l <"$TMP/report.out")
	if [ $st -ne 0 ]; then
		cp "$TMP/report.err" "$TMP/$file.$mode.$tool.err"
	fi
	# The sample-count line of the header, to see both tools read the same file.
	grep -m1 '^# Samples' "$TMP/report.out" >"$TMP/$file.$mode.$tool.head" 2>/dev/null
	# /usr/bin/time adds "Command exited with non-zero status N" first.
	tail -1 "$TMP/t.out" 2>/dev/null | awk -v l="$lines" -v s="$st" \
		'NF == 4 { printf "%s %.2f %s %s %s\n", $1, $2 + $3, $4, l, s; ok = 1 }
		 END { if (!ok) printf "0 0 0 %s %s\n", l, s }' >>"$TMP/$file.$mode.$tool.res"
}

pv=$("$PCL" --version 2>/dev/null | head -1)
echo "pcl report vs perf report --stdio${PERF_OPTS:+ $PERF_OPTS}: ${pv:-pcl not built}, $("$PERF" --version 2>/dev/null | head -1)"
echo "$(uname -sr), $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 " MiB" }') RAM; timer: $timer_name; best of N=$N"
for file in "${files[@]}"; do
	cat "$BENCH_DIR/$file.data" >/dev/null # in the page cache for everyone
	for mode in "${modes[@]}"; do
		for tool in "${tools[@]}"; do : >"$TMP/$file.$mode.$tool.res"; done
		printf 'bench: %s, %s: ' "$file" "$mode" >&2
		for ((r = 0; r < N; r++)); do
			for ((k = 0; k < ${#tools[@]}; k++)); do
				tool=${tools[(r + k) % ${#tools[@]}]}
				run "$tool" "$file" "$mode"
				printf '%s ' "$tool" >&2
			done
		done
		echo >&2
	done
done

# best FILE: the line of the round with the lowest wall time among those
# that exited 0 (or the last line if none did)
best() { awk '$5 == 0 && (!n++ || $1 < w) { w = $1; b = $0 } { l = $0 } END { print (n ? b : l) }' "$1"; }

for file in "${files[@]}"; do
	read -r s lost bytes secs dur <"$BENCH_DIR/$file.data.info"
	echo
	printf '%s: %s record %s -F %s, %s x python3 for %s CPU-s each (%s s wall): %s samples, %s LOST records, %.1f MiB\n' \
		"$BENCH_DIR/$file.data" "${file%-"$TAG"}" "$REC_CG" "$FREQ" "$COPIES" "${dur:-?}" "$secs" "$s" "$lost" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')"
	printf '  %-12s %-5s %8s %8s %9s %8s  %s\n' mode tool "wall s" "cpu s" "peak MiB" lines "header"
	for mode in "${modes[@]}"; do
		for tool in "${tools[@]}"; do
			read -r w c m l st < <(best "$TMP/$file.$mode.$tool.res")
			eval "${tool}_w=\$w ${tool}_c=\$c ${tool}_m=\$m ${tool}_st=\$st"
			hdr=$(sed 's/^# //' "$TMP/$file.$mode.$tool.head" 2>/dev/null)
			if [ "$st" != 0 ]; then
				[ "$st" = 124 ] && st="124, timed out after ${TIMEOUT}s"
				printf '  %-12s %-5s %8s %8s %9s %8s  FAILED (exit %s): %s\n' "$mode" "$tool" - - - "$l" "$st" \
					"$(grep -v '^$' "$TMP/$file.$mode.$tool.err" 2>/dev/null | head -1 | cut -c1-80)"
				continue
			fi
			printf '  %-12s %-5s %8.2f %8.2f %9.1f %8d  %s\n' "$mode" "$tool" "$w" "$c" \
				"$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$l" "$hdr"
		done
		# shellcheck disable=SC2154 # set through eval above
		if [ ${#tools[@]} -eq 2 ] && [ "$perf_st" = 0 ] && [ "$pcl_st" = 0 ]; then
			awk -v pw="$perf_w" -v cw="$pcl_w" -v pc="$perf_c" -v cc="$pcl_c" -v pm="$perf_m" -v cm="$pcl_m" 'BEGIN {
				t = cw > 0 ? pw / cw : 0; c = cc > 0 ? pc / cc : 0; m = pm > 0 ? cm / pm : 0
				printf "  %-12s perf/pcl time %.1fx (cpu %.1fx)%s, pcl/perf memory %.2fx%s\n", "", t, c,
					(t >= 10 ? "" : " [aim: >= 10x]"), m, (m <= 1 ? "" : " [aim: <= 1x]") }'
		fi
	done
done
[ -n "$pcl_note" ] && echo && echo "($pcl_note)"
exit 0
