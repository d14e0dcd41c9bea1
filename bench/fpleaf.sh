#!/usr/bin/env bash
# What the frame-pointer leaf repair costs (docs/fpleaf.md): pcl record -g
# copies 64 bytes of user stack per sample for it, and pcl report looks the
# leaf's CFI up. Printed, not asserted; not part of `make check`.
#
#   bench/fpleaf.sh [BUILD]        BUILD defaults to build/
#   ROUNDS=5 UNITS=8000 bench/fpleaf.sh
#
# The workload is tests/workloads/crunch.c (fixed work), built with gcc and
# -fno-omit-frame-pointer, which leaves crunch_leaf without a frame: the
# case the repair is for. Each round records it with
#   pcl record -g --no-fp-leaf -F max   (what the file would be without it)
#   pcl record -g -F max                (the default: with the stack copy)
#   perf record -g -F max
# in rotating order, and the table shows medians over the rounds of the
# wall time, the CPU time of everything (workload, recorder, its children:
# the workload's is fixed, so the difference is the recorder's), the file
# size and its bytes per sample, each as a ratio to the first row. Then
# pcl report (default options) on the default file against the same file
# with the stack copies cut out (tests/e2e/fpleaf-strip.py): the repair's
# cost when reading, and how many samples it repaired is in docs/fpleaf.md.
# Exits 1 only if pcl, perf, a compiler or python3 is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${ROUNDS:-3}
NTHR=${NTHR:-$(nproc)}
UNITS=${UNITS:-4000}
# shellcheck source=common.sh
. bench/common.sh # PCL, PERF, TIMER, TMP, die, data_walk (tests/e2e/lib.sh)
[ $have_pcl = 1 ] || die "'$PCL' not found; run 'make' first"
CC=$(command -v cc) || die "no C compiler"

crunch=$TMP/crunch
"$CC" -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$crunch" tests/workloads/crunch.c -lpthread ||
	die "cannot build crunch"

# one KIND: one recording into $TMP/KIND.data; appends "wall cpu bytes samples" to $TMP/KIND.res
one() {
	local kind=$1 f=$TMP/$1.data
	rm -f "$f"
	case $kind in
	plain) "${TIMER[@]}" "$TMP/t" "$PCL" record -q -g --no-fp-leaf -F max -o "$f" -- "$crunch" "$NTHR" "$UNITS" ;;
	leaf) "${TIMER[@]}" "$TMP/t" "$PCL" record -q -g -F max -o "$f" -- "$crunch" "$NTHR" "$UNITS" ;;
	perf) "${TIMER[@]}" "$TMP/t" "$PERF" record -q -g -F max -o "$f" -- "$crunch" "$NTHR" "$UNITS" ;;
	esac >/dev/null 2>"$TMP/$kind.err"
	echo "$(awk '{ print $1, $2 + $3 }' "$TMP/t") $(stat -c %s "$f") $(walk_get "$(data_walk "$f")" samples)" \
		>>"$TMP/$kind.res"
}

echo "bench: gcc-built crunch, $NTHR threads x $UNITS units, -g -F max" \
	"($(cat /proc/sys/kernel/perf_event_max_sample_rate) Hz), $ROUNDS rounds; $(nproc) CPUs" >&2
kinds=(plain leaf perf)
for r in $(seq "$ROUNDS"); do
	for i in 0 1 2; do
		one "${kinds[$(((r + i) % 3))]}"
	done
	printf '.' >&2
done
echo >&2

median() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-34s %8s %9s %9s %9s %9s %9s %9s\n' "" "wall s" ratio "CPU s" ratio MB ratio "B/sample"
for k in plain leaf perf; do
	case $k in
	plain) label="pcl record -g --no-fp-leaf" ;;
	leaf) label="pcl record -g (64-byte stack copy)" ;;
	perf) label="perf record -g" ;;
	esac
	awk -v l="$label" -v w="$(median "$TMP/$k.res" 1)" -v c="$(median "$TMP/$k.res" 2)" \
		-v b="$(median "$TMP/$k.res" 3)" -v s="$(median "$TMP/$k.res" 4)" \
		-v w0="$(median "$TMP/plain.res" 1)" -v c0="$(median "$TMP/plain.res" 2)" -v b0="$(median "$TMP/plain.res" 3)" '
		BEGIN { printf "%-34s %8.3f %8.2fx %9.3f %8.2fx %9.2f %8.2fx %9.1f\n", l, w, w / w0, c, c / c0,
			b / 1048576, b / b0, (s > 0 ? b / s : 0) }'
done

# Reading: pcl report on the default file, with and without the stack copies.
if python3 tests/e2e/fpleaf-strip.py "$TMP/leaf.data" "$TMP/stripped.data"; then
	for f in leaf stripped; do
		for r in $(seq $((ROUNDS * 2 + 1))); do
			"${TIMER[@]}" "$TMP/t" "$PCL" report -i "$TMP/$f.data" --stdio >/dev/null 2>&1
			awk '{ print $1, $2 + $3 }' "$TMP/t" >>"$TMP/rep-$f.res"
		done
	done
	awk -v a="$(median "$TMP/rep-leaf.res" 1)" -v b="$(median "$TMP/rep-stripped.res" 1)" \
		-v ca="$(median "$TMP/rep-leaf.res" 2)" -v cb="$(median "$TMP/rep-stripped.res" 2)" \
		-v s="$(walk_get "$(data_walk "$TMP/leaf.data")" samples)" '
		BEGIN { printf "pcl report --stdio, %d samples, with the repair / on the file without the copies:\n", s
			printf "  wall %.3f / %.3f s: %.2fx; CPU %.3f / %.3f s: %.2fx\n", a, b, (b > 0 ? a / b : 0),
				ca, cb, (cb > 0 ? ca / cb : 0) }'
fi
for k in plain leaf perf; do
	if [ -s "$TMP/$k.err" ]; then
		echo "($k wrote on stderr in its last run:)"
		head -5 "$TMP/$k.err"
	fi
done
exit 0
