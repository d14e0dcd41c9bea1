#!/usr/bin/env bash
# A first look at pcl: count what a small bundled program does. `make demo`
# builds pcl and the workload, then runs this.
#
#   scripts/demo.sh [BUILD]        BUILD defaults to build/
#
# The workload (examples/demo-workload.c) does a known amount of work: three
# hot functions, 2000 freshly touched pages, 1000 write() calls to /dev/null,
# one forked child. Each step below prints what it shows, the command, and
# pcl's output. Exits non-zero if pcl fails.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
PCL=$BUILD/pcl
WORKLOAD=$BUILD/examples/demo-workload

for f in "$PCL" "$WORKLOAD"; do
	if [ ! -x "$f" ]; then
		echo "demo: '$f' not found; run 'make demo' to build it" >&2
		exit 1
	fi
done

step=0
run() { # explanation, command...
	local why=$1 rc=0
	shift
	step=$((step + 1))
	printf '\n== %d. %s\n   $ %s\n' "$step" "$why" "$*"
	"$@" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "demo: step $step failed (exit $rc): $*" >&2
		exit 1
	fi
}

echo "$("$PCL" --version) on $(uname -sr), $(nproc) CPUs; perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"

run "Count the default events for a command, like 'perf stat'. Hardware counters read <not supported> without a PMU (most VMs)." \
	"$PCL" stat -- "$WORKLOAD"

# Tracepoints need tracefs; an unprivileged user usually cannot read it.
tp=syscalls:sys_enter_write
tfs_ok=0
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/events/syscalls/sys_enter_write/id" ] && tfs_ok=1
done
[ "$(id -u)" -eq 0 ] && tfs_ok=1
if [ $tfs_ok -eq 1 ]; then
	events=page-faults,$tp,task-clock
	why="Pick events with -e: expect about 2000 page-faults (one per fresh page) and 1000 $tp (plus one for the summary line)."
else
	events=page-faults,task-clock,context-switches
	why="Pick events with -e: expect about 2000 page-faults, one per fresh page. (Run as root to count the $tp tracepoint too: tracefs is not readable here.)"
fi
run "$why" "$PCL" stat -e "$events" -- "$WORKLOAD"

run "Machine-readable output for scripts: -x, prints CSV in the same columns as 'perf stat -x,' (value,unit,event,run time,% running,metric)." \
	"$PCL" stat -x, -e "$events" -- "$WORKLOAD"

# Sampling: pcl record writes a perf.data that Linux perf reads (pcl's own report comes next).
data=$(mktemp /tmp/pcl-demo.XXXXXX.data)
trap 'rm -f "$data" "$data.old"' EXIT
run "Sample with call chains: 'pcl record -g' writes a perf.data file that Linux perf reads too." \
	"$PCL" record -g -o "$data" -- "$WORKLOAD"
run "The hottest functions of that file, by pcl report (sum_primes, mat_mul, hash_bytes), laid out like perf report." \
	"$PCL" report -i "$data" --stdio --no-children --sort comm,sym -g none --percent-limit 1
run "Where they are called from: the call graph of the hottest one, callers first." \
	"$PCL" report -i "$data" --stdio --no-children -g caller --symbols sum_primes -q
if command -v perf >/dev/null 2>&1; then
	step=$((step + 1))
	printf '\n== %d. %s\n   $ %s\n' "$step" \
		"The same file, as Linux 'perf report' sees it: the same numbers." \
		"perf report -i $data --stdio --no-children --sort comm,sym -g none --percent-limit 1"
	perf report -i "$data" --stdio --no-children --sort comm,sym -g none --percent-limit 1 2>/dev/null |
		grep -E '^ +[0-9.]+%' | head -8
fi

# Pictures: the same file as pages to open in a browser (no server, no network).
out=$(dirname "$PCL")
run "Pictures: an interactive flame graph and a one-page report, to open in a browser from the file." \
	"$PCL" report -i "$data" --format=flamegraph -o "$out/demo-flamegraph.svg"
"$PCL" report -i "$data" --format=html -o "$out/demo-report.html" &&
	printf '   wrote %s and %s\n' "$out/demo-flamegraph.svg" "$out/demo-report.html"

printf '\nMore: %s script (one line per sample, as perf script), %s list, %s stat -r 5, %s help.\n' \
	"$PCL" "$PCL" "$PCL" "$PCL"
