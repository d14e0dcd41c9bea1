# Shared helpers for end-to-end tests. Source it from tests/e2e/t-*.sh.
# Each check prints exactly one line: "ok NAME", "not ok NAME" (followed by
# indented details of what was compared), or "skip NAME: reason".
set -u
: "${PCL:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/pcl}"
: "${BUILD:=$(dirname "$PCL")}"
WORKLOADS="$BUILD/tests/workloads"
# Workloads are built without sanitizers; a sanitizer build of pcl uses the plain ones if present.
[ -d "$WORKLOADS" ] || WORKLOADS="$(dirname "$BUILD")/tests/workloads"
TMP=$(mktemp -d /tmp/pcl-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export LC_ALL=C

ok() { echo "ok $1"; }
skip() { echo "skip $1: $2"; }
not_ok() { # name, details...
	local name=$1
	shift
	echo "not ok $name"
	local l
	# Indent every line, also inside multi-line details, so that no detail
	# line can be read as a result line.
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/    /'; done
}
# check NAME CMD...: ok if CMD succeeds
check() {
	local name=$1
	shift
	if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name" "command: $*" "$(head -20 "$TMP/check.out")"; fi
}
have_perf() { command -v perf >/dev/null 2>&1; }
# within A B TOL_PCT: |A-B| <= TOL% of max(|A|,|B|) (or both tiny)
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d=a-b; if (d<0) d=-d; m=(a>b?a:b); if (m<0) m=-m; exit !(d <= m*t/100 || d < 1e-9) }'; }

# ---- helpers for the stat/list/cli tests (t-stat-*.sh, t-list.sh, t-cli.sh) ----

# run TAG CMD...: run CMD with stdout in $TMP/TAG.out, stderr in $TMP/TAG.err,
# under a 20 s timeout; the exit status is left in $RC (124 on timeout).
run() {
	local tag=$1
	shift
	timeout -k 5 20 "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err"
	RC=$?
}
# crashed FILE RC: true if RC says killed by a signal or FILE holds sanitizer output.
crashed() {
	[ "$2" -ge 128 ] && return 0
	grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"
}
# norm_words < stat output: numbers -> N, blank runs -> one space, edges trimmed.
# A comma ends a number (CSV); tests run with LC_ALL=C, so no digit grouping.
norm_words() { sed -E 's/[0-9][0-9.]*/N/g; s/[[:space:]]+/ /g; s/^ //; s/ $//'; }
# norm_layout < stat output: every number, with the blanks that pad it on its
# left, becomes a run of '~' of the same width; keeps column positions.
norm_layout() { perl -pe 's/(?<![\w.:\/])( *\d[\d.,]*)/"~" x length($1)/ge'; }
# csv_count FILE EVENT [SEP]: counter value of the first -x line whose event
# field (the third) is EVENT; prints nothing if there is none.
csv_count() {
	awk -F"${3:-,}" -v ev="$2" '$3 == ev { print $1; exit }' "$1"
}
# plain_count FILE EVENT: counter value (separators stripped) of the first
# plain-output line naming EVENT.
plain_count() {
	awk -v ev="$2" '{ for (i = 2; i <= NF; i++) if ($i == ev) { gsub(/,/, "", $1); print $1; exit } }' "$1"
}
# diff_or_ok NAME FILE_A FILE_B LABEL_A LABEL_B: ok if equal, else not ok with a diff.
diff_or_ok() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		local lines
		mapfile -t lines < <(diff -u --label "$4" --label "$5" "$2" "$3" | head -40)
		not_ok "$1" "${lines[@]}"
	fi
}
# show FILE: the first lines of FILE, for not_ok details.
show() { head -"${2:-15}" "$1" | sed 's/^/| /'; }
# workload NAME [CC FLAGS...]: path of the workload built from
# tests/workloads/NAME.c. With no flags, the one the Makefile built if it
# exists; otherwise (or with flags, e.g. -no-pie) it is compiled into $TMP.
workload() {
	local name=$1 src
	shift
	if [ $# -eq 0 ] && [ -x "$WORKLOADS/$name" ]; then
		echo "$WORKLOADS/$name"
		return 0
	fi
	src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/workloads/$name.c"
	local out="$TMP/wl-$name${1:+$(echo "$*" | tr -c 'a-zA-Z0-9\n' _)}"
	[ -x "$out" ] || cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline "$@" \
		-o "$out" "$src" -lm -lpthread >&2 || return 1
	echo "$out"
}
# unscale < stat output: rate units scale with the value (/sec, K/sec,
# M/sec); keep the unit, drop the scale, keep the width.
unscale() { sed -E 's/"[KMG]\/sec"/"\/sec"/g; s/[KMG]\/sec/\/sec /g'; }
# unnull < stat -j output: perf -j prints "metric-unit" : "(null)" for an event
# with no metric, pcl "" (a deliberate difference).
unnull() { sed 's/"metric-unit" : "(null)"/"metric-unit" : ""/g'; }
# json_lines FILE: true if every non-empty line of FILE is a JSON object;
# status 2 if neither python3 nor jq is there to tell.
json_lines() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c '
import json, sys
for n, l in enumerate(open(sys.argv[1]), 1):
    if l.strip() and not isinstance(json.loads(l), dict):
        sys.exit("line %d: not an object" % n)' "$1" 2>/dev/null
	elif command -v jq >/dev/null 2>&1; then
		grep -v '^[[:space:]]*$' "$1" | jq -s -e 'length > 0 and all(.[]; type == "object")' >/dev/null 2>&1
	else
		return 2
	fi
}
