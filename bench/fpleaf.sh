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

# The table: medians over the rounds, ratios to the plain -g row.
python3 - "$TMP" <<'EOF'
import statistics, sys
rows = [("plain", "pcl record -g --no-fp-leaf"), ("leaf", "pcl record -g (64-byte stack copy)"),
        ("perf", "perf record -g")]
med = {}
for kind, _ in rows:
    runs = [list(map(float, l.split())) for l in open("%s/%s.res" % (sys.argv[1], kind)) if l.strip()]
    med[kind] = [statistics.median(col) for col in zip(*runs)]
print("%-34s %8s %9s %9s %9s %9s %9s %9s" % ("", "wall s", "ratio", "CPU s", "ratio", "MB", "ratio", "B/sample"))
w0, c0, b0, _ = med["plain"]
for kind, label in rows:
    w, c, b, s = med[kind]
    print("%-34s %8.3f %8.2fx %9.3f %8.2fx %9.2f %8.2fx %9.1f" % (label, w, w / w0, c, c / c0, b / 1048576, b / b0,
                                                                b / s if s else 0))
EOF

# Reading: pcl report on the default file, with and without the stack copies.
if python3 tests/e2e/fpleaf-strip.py "$TMP/leaf.data" "$TMP/stripped.data"; then
	for f in leaf stripped; do
		for r in $(seq $((ROUNDS * 2 + 1))); do
			"${TIMER[@]}" "$TMP/t" "$PCL" report -i "$TMP/$f.data" --stdio >/dev/null 2>&1
			awk '{ print $1, $2 + $3 }' "$TMP/t" >>"$TMP/rep-$f.res"
		done
	done
	python3 - "$TMP" "$(walk_get "$(data_walk "$TMP/leaf.data")" samples)" <<'EOF'
import statistics, sys
def med(f, col):
    return statistics.median(float(l.split()[col]) for l in open("%s/rep-%s.res" % (sys.argv[1], f)) if l.strip())
a, b, ca, cb = med("leaf", 0), med("stripped", 0), med("leaf", 1), med("stripped", 1)
print("pcl report --stdio, %s samples, with the repair / on the file without the copies:" % sys.argv[2])
print("  wall %.3f / %.3f s: %.2fx; CPU %.3f / %.3f s: %.2fx" % (a, b, a / b if b else 0, ca, cb, ca / cb if cb else 0))
EOF
fi
for k in plain leaf perf; do
	if [ -s "$TMP/$k.err" ]; then
		echo "($k wrote on stderr in its last run:)"
		head -5 "$TMP/$k.err"
	fi
done
exit 0
