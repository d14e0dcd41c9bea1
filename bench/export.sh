#!/usr/bin/env bash
# How long each export format takes to write for the million-sample file of
# bench/report.sh, next to pcl report --stdio on the same file (its default
# mode, children and call graphs: none should cost more than the report
# itself), and, for reference, pcl report --stdio --no-children and perf
# script on it (the usual first step of a flame graph made with perf).
# Printed, not asserted; not part of `make check`.
#
#   bench/export.sh [BUILD]        BUILD defaults to build/
#   N=1 bench/export.sh            one timed run per case (default best of 3)
#
# The files are bench/report.sh's (recorded by it, or here if missing, into
# $BENCH_DIR, default /tmp/pcl-bench). Columns: wall s, cpu s, peak MiB (as
# in bench/report.sh), the output's size in MiB, and wall time as a share of
# pcl report --stdio's (the aim for the formats: at most 1x).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=common.sh
. bench/common.sh "$@"
N=${N:-3}

pcl_has report || die "'$PCL' has no report command (run 'make')"
files=()
if pcl_has record && record pcl "$BENCH_DIR/pcl-g.data"; then files+=(pcl-g); fi
record perf "$BENCH_DIR/perf-g.data" && files+=(perf-g)
[ ${#files[@]} -gt 0 ] || die "no file to export"

cases=(report report-flat folded flamegraph html pprof firefox speedscope json perf-script)
# timed CASE FILE: "WALL CPU MAXRSS_KIB BYTES STATUS" of the best of N runs
timed() {
	local c=$1 f=$BENCH_DIR/$2.data r st best=
	local -a cmd
	case $c in
	report) cmd=("$PCL" report --stdio -i "$f") ;;
	report-flat) cmd=("$PCL" report --stdio --no-children -i "$f") ;;
	perf-script) cmd=("$PERF" script -i "$f") ;;
	*) cmd=("$PCL" report -i "$f" --format="$c") ;;
	esac
	for ((r = 0; r < N; r++)); do
		rm -f "$TMP/t.out"
		"${TIMER[@]}" "$TMP/t.out" "${TO[@]}" "${cmd[@]}" >"$TMP/out" 2>"$TMP/err"
		st=$?
		line=$(tail -1 "$TMP/t.out" 2>/dev/null | awk -v b="$(stat -c %s "$TMP/out")" -v s="$st" \
			'NF == 4 { printf "%s %.2f %s %s %s\n", $1, $2 + $3, $4, b, s }')
		[ -n "$line" ] || line="0 0 0 0 $st"
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN { split(a, x); split(b, y); exit !(x[5] == 0 && (y[5] != 0 || x[1] < y[1])) }'; then
			best=$line
			[ "$st" = 0 ] || cp "$TMP/err" "$TMP/$c.err"
		fi
	done
	echo "$best"
}

pv=$("$PCL" --version 2>/dev/null | head -1)
echo "pcl report --format=... vs pcl report --stdio: $pv, $("$PERF" --version 2>/dev/null | head -1)"
echo "$(uname -sr), $(nproc) CPUs; timer: $timer_name; best of N=$N"
for file in "${files[@]}"; do
	read -r s lost bytes secs dur <"$BENCH_DIR/$file.data.info"
	cat "$BENCH_DIR/$file.data" >/dev/null
	echo
	printf '%s: %s samples, %.1f MiB\n' "$BENCH_DIR/$file.data" "$s" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')"
	printf '  %-12s %8s %8s %9s %9s  %s\n' format "wall s" "cpu s" "peak MiB" "out MiB" "vs report"
	base=
	for c in "${cases[@]}"; do
		printf 'bench: %s %s\n' "$file" "$c" >&2
		read -r w cpu m b st < <(timed "$c" "$file")
		if [ "$st" != 0 ]; then
			printf '  %-12s FAILED (exit %s): %s\n' "$c" "$st" "$(head -1 "$TMP/$c.err" 2>/dev/null | cut -c1-80)"
			continue
		fi
		[ "$c" = report ] && base=$w
		printf '  %-12s %8.2f %8.2f %9.1f %9.1f  %s\n' "$c" "$w" "$cpu" \
			"$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$(awk -v k="$b" 'BEGIN { print k / 1048576 }')" \
			"$(awk -v w="$w" -v b="${base:-0}" -v c="$c" 'BEGIN { if (b > 0) { r = w / b
				aim = c !~ /^(report|perf-script)/ && r > 1
				printf "%.2fx%s", r, (aim ? " [aim: <= 1x]" : "") } }')"
	done
done
exit 0
