#!/usr/bin/env bash
# -e u:BIN:FUNC[%return]: the uprobe PMU opened directly (perf_event_open(2):
# config1 the path, config2 the offset). Counts are the exact calls the
# workload makes, record and script see one sample per call, perf reads the
# file, and tracefs's uprobe_events is left exactly as it was.
. "$(dirname "$0")/lib.sh"

if [ ! -e /sys/bus/event_source/devices/uprobe/type ]; then
	skip uprobe-pmu "this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe)"
	exit 0
fi
bin=$WORKLOADS/probed
if [ ! -x "$bin" ]; then
	skip uprobe-pmu "workload $bin not built (make tests)"
	exit 0
fi
tfs=/sys/kernel/tracing
[ -e $tfs/uprobe_events ] || tfs=/sys/kernel/debug/tracing
before=$(cat $tfs/uprobe_events 2>/dev/null)

# ---- stat: exact counts, entry and return ----
run stat "$PCL" stat -x, -e "u:$bin:probed_add,u:$bin:probed_add%return" -e "u:$bin:probed_name" \
	-- "$bin" 13
a=$(csv_count "$TMP/stat.err" "u:$bin:probed_add")
r=$(csv_count "$TMP/stat.err" "u:$bin:probed_add%return")
n=$(csv_count "$TMP/stat.err" "u:$bin:probed_name")
if [ $RC = 0 ] && [ "$a" = 13 ] && [ "$r" = 13 ] && [ "$n" = 14 ]; then
	ok uprobe-stat-counts
else
	not_ok uprobe-stat-counts "rc=$RC; want 13 13 14, got '$a' '$r' '$n'" "$(show "$TMP/stat.err")"
fi
# the plain output names the event as written
run plain "$PCL" stat -e "u:$bin:probed_add%return" -- "$bin" 2
if grep -qE "^ +2 +u:$bin:probed_add%return " "$TMP/plain.err"; then
	ok uprobe-stat-name
else
	not_ok uprobe-stat-name "$(show "$TMP/plain.err")"
fi
# a relative path and modifiers
(cd "$(dirname "$bin")" && "$PCL" stat -x, -e "u:./probed:probed_name:u" -- ./probed 3 \
	>/dev/null 2>"$TMP/rel.err")
if [ "$(csv_count "$TMP/rel.err" "u:./probed:probed_name:u")" = 4 ]; then
	ok uprobe-relative-path-mods
else
	not_ok uprobe-relative-path-mods "$(show "$TMP/rel.err")"
fi
# a library by name, as perf probe -x takes it: libc's getpid... through the workload's printf
run lib "$PCL" stat -x, -e "u:libc:printf" -- "$bin" 1
if [ "$(csv_count "$TMP/lib.err" "u:libc:printf")" = 1 ]; then
	ok uprobe-library-by-name
else
	not_ok uprobe-library-by-name "rc=$RC" "$(show "$TMP/lib.err")"
fi
# FUNC+OFF past the end of the loaded file: an error, not a '<not supported>' count
run faroff "$PCL" stat -x, -e "u:$bin:probed_name+99999999" -- "$bin" 1
if [ "$RC" -ne 0 ] && grep -qE 'no loadable segment|bigger than the size' "$TMP/faroff.err"; then
	ok uprobe-offset-out-of-file
else
	not_ok uprobe-offset-out-of-file "rc=$RC (want non-zero and why)" "$(show "$TMP/faroff.err")"
fi
# an IFUNC (libc's memcpy): a uprobe on its symbol counts the resolver, a few
# hits per process, not the calls; refused with the reason, not a wrong count
if readelf -W --dyn-syms "$(grep -w libc /proc/self/maps | head -1 | sed -r 's/.*[[:space:]](\/.*)/\1/')" 2>/dev/null |
	grep -qE 'IFUNC .* memcpy@@'; then
	run ifunc "$PCL" stat -x, -e "u:libc:memcpy" -- "$bin" 1
	if [ "$RC" -ne 0 ] && grep -q 'GNU indirect function' "$TMP/ifunc.err"; then
		ok uprobe-ifunc-refused
	else
		not_ok uprobe-ifunc-refused "rc=$RC (want non-zero and why)" "$(show "$TMP/ifunc.err")"
	fi
else
	skip uprobe-ifunc-refused "this libc's memcpy is no IFUNC"
fi

# in a group: the kernel wants one inherit in a group, and the probe has none
run grp "$PCL" stat -x, -e "{u:$bin:probed_name,cpu-clock}" -- "$bin" 6
g=$(awk -F, -v e="u:$bin:probed_name" '$3 == e { print $1 }' "$TMP/grp.err")
if [ "$RC" -eq 0 ] && [ "$g" = 7 ]; then
	ok uprobe-in-group
else
	not_ok uprobe-in-group "rc=$RC; want 7 probed_name calls counted in a group with cpu-clock, got '$g'" \
		"$(show "$TMP/grp.err")"
fi

# ---- record and script: one sample per call; perf reads the file ----
"$PCL" record -N -q -o "$TMP/u.data" -e "u:$bin:probed_name" -e "u:$bin:probed_add%return" \
	-- "$bin" 6 >/dev/null 2>"$TMP/rec.err"
"$PCL" script -i "$TMP/u.data" >"$TMP/script.out" 2>&1
n=$(grep -c "u:$bin:probed_name:" "$TMP/script.out")
r=$(grep -c "u:$bin:probed_add%return:" "$TMP/script.out")
if [ "$n" = 7 ] && [ "$r" = 6 ]; then
	ok uprobe-record-script
else
	not_ok uprobe-record-script "want 7 probed_name and 6 returns, got $n $r" \
		"$(show "$TMP/rec.err")" "$(show "$TMP/script.out")"
fi
if grep -q "probed_name+0x0 ($bin)" "$TMP/script.out"; then
	ok uprobe-record-ip
else
	not_ok uprobe-record-ip "samples are not at probed_name's entry" "$(show "$TMP/script.out")"
fi
# an event's terms, as perf takes them on its probe events
# (probe_libc:inet_pton/max-stack=3/): FUNC/max-stack=2/ gives call chains,
# and the leaf repair puts back main, which the frame-pointer chain skips at
# probed_name's first instruction
"$PCL" record -N -q -o "$TMP/ut.data" -e "u:$bin:probed_name/max-stack=2/" -- "$bin" 6 >/dev/null 2>"$TMP/rect.err"
"$PCL" script -F ip,sym -i "$TMP/ut.data" >"$TMP/scriptt.out" 2>&1
n=$(grep -A1 -E '[0-9a-f] probed_name$' "$TMP/scriptt.out" | grep -cE '[0-9a-f] main$')
a=$("$PCL" evlist -v -i "$TMP/ut.data" 2>/dev/null | head -1)
if [ "$n" = 7 ] && [[ "$a" == *"sample_max_stack: 2"* && "$a" == *CALLCHAIN* ]]; then
	ok uprobe-terms
else
	not_ok uprobe-terms "want 7 samples of probed_name called from main, and max-stack 2 in the attr; got $n:" \
		"$a" "$(show "$TMP/rect.err")" "$(show "$TMP/scriptt.out" 12)"
fi
if have_perf; then
	perf script -i "$TMP/u.data" >"$TMP/perf.out" 2>"$TMP/perf.err"
	pn=$(grep -c "u:$bin:probed_name:" "$TMP/perf.out")
	perf report -i "$TMP/u.data" --stdio >"$TMP/report.out" 2>&1
	if [ "$pn" = 7 ] && grep -q "of event 'u:$bin:probed_add%return'" "$TMP/report.out"; then
		ok uprobe-perf-reads
	else
		not_ok uprobe-perf-reads "perf script: $pn samples" "$(show "$TMP/perf.err")" \
			"$(show "$TMP/report.out")"
	fi
else
	skip uprobe-perf-reads "perf is not installed"
fi

# ---- a function with inlined copies: all counted by one event, or refused ----
# twice: out of line (called through a pointer once) and inlined in main's
# loop N times; once: inlined in one place only, N calls.
cat >"$TMP/inl.c" <<'EOF'
#include <stdlib.h>
static volatile int sink;
int twice(int x) { return x * 2 + (sink & 1); }
static inline __attribute__((always_inline)) int once(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int use(int (*f)(int), int x) { return f(x); }
int main(int argc, char **argv) {
	int n = atoi(argv[1]), s = 0;
	for (int i = 0; i < n; i++) s += twice(i) + once(i);
	return use(twice, s) == 42;
}
EOF
if cc -O2 -g -o "$TMP/inl" "$TMP/inl.c" 2>"$TMP/cc.err"; then
	run inl2 "$PCL" stat -x, -e "u:$TMP/inl:twice" -- "$TMP/inl" 5
	if [ $RC -ne 0 ] && grep -q "^pcl: .*'twice' has 2 copies" "$TMP/inl2.err" &&
		[ "$(grep -c . "$TMP/inl2.err")" = 1 ]; then
		ok uprobe-inlined-copies-refused
	else
		not_ok uprobe-inlined-copies-refused "rc=$RC (want an error: one event cannot count the inlined calls)" \
			"$(show "$TMP/inl2.err")"
	fi
	run inl0 "$PCL" stat -x, -e "u:$TMP/inl:twice+0" -e "u:$TMP/inl:once" -- "$TMP/inl" 5
	t=$(csv_count "$TMP/inl0.err" "u:$TMP/inl:twice+0")
	o=$(csv_count "$TMP/inl0.err" "u:$TMP/inl:once")
	if [ $RC = 0 ] && [ "$t" = 1 ] && [ "$o" = 5 ]; then
		ok uprobe-inlined-one-copy
	else
		not_ok uprobe-inlined-one-copy "rc=$RC; want twice+0 1 (its out-of-line copy), once 5 (its one inlined copy), got '$t' '$o'" \
			"$(show "$TMP/inl0.err")"
	fi
else
	not_ok uprobe-inlined "cc could not build the workload" "$(show "$TMP/cc.err")"
fi

# ---- nothing left behind ----
if [ "$before" = "$(cat $tfs/uprobe_events 2>/dev/null)" ]; then
	ok uprobe-nothing-left
else
	not_ok uprobe-nothing-left "uprobe_events changed:" "$(cat $tfs/uprobe_events)"
fi

# ---- bad input: one line, non-zero ----
for bad in "u:$bin:nosuch" "u:/nonexistent/x:main" "u:$bin:probed_add%entry" "u:$bin:" "u::main" \
	"u:$bin:probed_add+zz"; do
	run bad "$PCL" stat -e "$bad" -- true
	if [ $RC -ne 0 ] && ! crashed "$TMP/bad.err" $RC && [ "$(grep -c . "$TMP/bad.err")" -le 2 ] &&
		grep -q "^pcl: .*u" "$TMP/bad.err"; then
		ok "uprobe-bad '$bad'"
	else
		not_ok "uprobe-bad '$bad'" "rc=$RC" "$(show "$TMP/bad.err")"
	fi
done
