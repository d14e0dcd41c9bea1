#!/usr/bin/env bash
# perf's own shell tests (linux-perf's /usr/lib/perf-core/tests/shell), run
# with pcl as `perf`: a `perf` symlink to pcl first on PATH.
#
# Each test runs twice, first with the real perf 6.1, which says what this
# machine allows:
#   - real perf skips it (exit 2): skipped, with the reason perf's test gave;
#   - real perf fails it: pcl is run anyway; passing is reported, failing is
#     a skip naming perf's own failure;
#   - real perf passes it: pcl must pass it too, and no pcl call in it may
#     have been refused (unknown option, unknown command, missing value,
#     a feature pcl says it lacks):
#     a test whose loop ran zero times because pcl refused an option has
#     not passed. PCL_ERROR_LOG collects every error pcl printed.
# Tests needing commands of a later issue (probe, lock, trace, off-CPU)
# are reported as waiting, by name.
#
# PERF_SHELL_TESTS=DIR picks another folder; PERF_SHELL_ONLY="a.sh b.sh"
# runs only those.
. "$(dirname "$0")/lib.sh"

dir=${PERF_SHELL_TESTS:-/usr/lib/perf-core/tests/shell}
if [ ! -d "$dir" ] || ! command -v perf >/dev/null; then
	skip perf-shell "perf's shell tests ($dir) or perf itself are not installed (Debian: linux-perf)"
	exit 0
fi
realperf=$(command -v perf)

# Tests pcl does not take part in yet, and why. trace+probe_vfs_getname.sh
# checks perf trace's paths taken from a vfs_getname kprobe; pcl trace reads
# paths without kprobes (docs/trace.md), and this VM has none to try it on.
declare -A waiting=(
	[trace+probe_vfs_getname.sh]="perf trace's paths from a vfs_getname kprobe (pcl trace reads paths without kprobes; this kernel has none)"
)

shim=$TMP/shim
mkdir -p "$shim"
ln -sf "$PCL" "$shim/perf"

# run_one WHO TEST: runs TEST from a scratch directory (the tests write
# perf.data files into the current one); sets RC, output in $TMP/WHO.out
run_one() {
	local who=$1 t=$2 path=$PATH
	[ "$who" = pcl ] && path=$shim:$PATH
	mkdir -p "$TMP/cwd-$who"
	(cd "$TMP/cwd-$who" && PATH=$path PCL_ERROR_LOG=$TMP/errors \
		timeout -k 10 300 bash "$t" </dev/null >"$TMP/$who.out" 2>&1)
	RC=$?
}

# the reason a test gave: its last line saying skip (or not supported),
# else its last line with a word in it (not a "Cleaning up" one)
last_line() {
	local l
	l=$(grep -iE 'skip|not supported' "$1" | tail -1 | cut -c1-160)
	[ -n "$l" ] || l=$(grep '[[:alpha:]]' "$1" | grep -iv '^cleaning up' | tail -1 | cut -c1-160)
	echo "${l:-(exit 2, no reason printed)}"
}

for t in "$dir"/*.sh; do
	name=$(basename "$t")
	[ -n "${PERF_SHELL_ONLY:-}" ] && [[ " $PERF_SHELL_ONLY " != *" $name "* ]] && continue
	if [ -n "${waiting[$name]:-}" ]; then
		skip "perf-shell $name" "waiting: needs ${waiting[$name]}, which pcl does not have yet"
		continue
	fi
	run_one perf "$t"
	perf_rc=$RC
	if [ $perf_rc -eq 2 ]; then
		skip "perf-shell $name" "perf 6.1 skips it here: $(last_line "$TMP/perf.out")"
		continue
	fi
	rm -f "$TMP/errors"
	run_one pcl "$t"
	pcl_rc=$RC
	refused=$(grep -B1 -E "unknown option|is not a pcl command|needs a value|not supported by pcl|pcl does not (write|support|have)" "$TMP/errors" 2>/dev/null | grep -v "^--$")
	if [ $perf_rc -ne 0 ]; then
		if [ $pcl_rc -eq 0 ] && [ -z "$refused" ]; then
			ok "perf-shell $name (perf 6.1 itself fails it here)"
		else
			skip "perf-shell $name" "perf 6.1 fails it here too (exit $perf_rc): $(last_line "$TMP/perf.out")"
		fi
		continue
	fi
	if [ $pcl_rc -eq 0 ] && [ -z "$refused" ]; then
		ok "perf-shell $name"
	elif [ $pcl_rc -eq 0 ]; then
		not_ok "perf-shell $name" "passed, but pcl refused calls in it:" "$refused"
	else
		not_ok "perf-shell $name" "exit $pcl_rc with pcl as perf (0 with perf 6.1); last lines:" \
			"$(tail -15 "$TMP/pcl.out")" "${refused:+refused calls: $refused}"
	fi
done
