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

# ---- helpers for the record tests (t-record-*.sh) ----

# has_cmd NAME: true if this pcl has the command NAME ('pcl help' lists it,
# or 'pcl help NAME' knows it).
has_cmd() {
	"$PCL" help 2>/dev/null | grep -qE "^[[:space:]]+$1([[:space:]]|\$)" ||
		"$PCL" help "$1" >/dev/null 2>&1
}
has_record() { has_cmd record; }
# workload_fp NAME: path of tests/workloads/NAME.c built into $TMP with clang
# and frame pointers in leaf functions too, no tail calls (STYLE.md), so the
# call chains a test expects are exact. Fails if clang is missing.
workload_fp() {
	local name=$1 src out
	src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/workloads/$name.c"
	out="$TMP/wl-$name-fp"
	command -v clang >/dev/null 2>&1 || return 1
	[ -x "$out" ] || clang -std=gnu11 -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o "$out" "$src" -lm -lpthread >&2 || return 1
	echo "$out"
}
# run_long TAG SECS CMD...: like run, with a timeout of SECS seconds.
run_long() {
	local tag=$1 secs=$2
	shift 2
	timeout -k 5 "$secs" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err"
	RC=$?
}
# record_to PREFIX BY CASE ARGS...: record with perf (BY=perf) or pcl, ARGS
# ending in '-o $TMP/CASE.data -- CMD...' (pcl's without the -g leaf
# repair data); false, after a 'not ok
# PREFIX-CASE' or 'skip PREFIX-CASE' line, if that failed (perf is the
# oracle: its failure says so; a pcl without a record command skips).
record_to() {
	local prefix=$1 by=$2 id=$3
	shift 3
	local F=$TMP/$id.data
	if [ "$by" = perf ]; then
		run_long "rec-$id" 60 perf record -q "$@"
		if [ "$RC" -ne 0 ] || [ ! -s "$F" ]; then
			not_ok "$prefix-$id" "oracle: perf record $*: exit $RC" "$(show "$TMP/rec-$id.err")"
			return 1
		fi
	else
		if ! has_record; then
			skip "$prefix-$id" "this pcl has no record command"
			return 1
		fi
		# --no-fp-leaf: perf cannot see -g's leaf repair (t-fpleaf.sh tests
		# it), so the files the suites compare with perf are plain -g ones.
		run_long "rec-$id" 60 "$PCL" record -q --no-fp-leaf "$@"
		if [ "$RC" -ne 0 ] || crashed "$TMP/rec-$id.err" "$RC" || [ ! -s "$F" ]; then
			not_ok "$prefix-$id" "pcl record $*: exit $RC (want 0)" "$(show "$TMP/rec-$id.err")"
			return 1
		fi
	fi
}
# complaints FILE: the lines of FILE (a perf reader's stderr) that warn or fail.
complaints() { grep -iE 'warn|fail|error|unexpected|broken|corrupt|invalid|incompatible|not supported|cannot|can.t' "$1"; }
# perf_reads_clean NAME TAG CMD...: run CMD (a perf reader) as TAG; ok if it
# exits 0, prints something on stdout and nothing on stderr that complains.
perf_reads_clean() {
	local name=$1 tag=$2
	shift 2
	run_long "$tag" 60 "$@"
	if [ "$RC" -eq 0 ] && [ -s "$TMP/$tag.out" ] && ! complaints "$TMP/$tag.err" >/dev/null; then
		ok "$name"
	else
		not_ok "$name" "command: $*" "exit $RC (want 0), stdout $(wc -c <"$TMP/$tag.out") bytes (want > 0)," \
			"stderr (want no warning/error line):" "$(show "$TMP/$tag.err")"
	fi
}
# record_summary FILE: from pcl record's stderr in FILE, print "WOKEN MB PATH
# SAMPLES" out of "[ pcl record: Woken up N times to write data ]" and
# "[ pcl record: Captured and wrote X MB PATH (N samples) ]"; "-" for a
# missing field.
record_summary() {
	perl -ne '
		$w = $1 if /^\[ pcl record: Woken up (\d+) times? to write data \]/;
		($m, $p, $s) = ($1, $2, $3) if /^\[ pcl record: Captured and wrote ([\d.]+) MB (.*?)(?: \((\d+) samples\))? \]$/;
		END { printf "%s %s %s %s\n", $w // "-", $m // "-", $p // "-", $s // "-" }' "$1"
}
# data_walk FILE: walk the records of a perf.data file (file or pipe mode)
# without perf, trusting nothing, and print "key=value" words:
#   mode=file|pipe|bad  data_offset= data_size= (file mode, from the header)
#   file_size= walked= (bytes of records walked) tail= (bytes left that do
#   not form a whole record) records= samples= lost_records= lost=
#   (sum of PERF_RECORD_LOST counts) lost_samples= (sum of LOST_SAMPLES)
#   features= (number of feature bits set in the header) feat_end= (where
#   the last feature section ends: the file size in a whole file)
# A file-mode walk covers the header's data section, or, when the header
# says 0 bytes or holds no feature sections (a recorder killed before its
# end), everything from the data offset to the end of the file.
data_walk() {
	command -v python3 >/dev/null 2>&1 || { echo "mode=nopython"; return 2; }
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
out = {'file_size': len(d)}
def done(**kw):
    out.update(kw)
    print(' '.join('%s=%s' % kv for kv in out.items()))
    sys.exit(0)
if len(d) < 16 or d[:8] != b'PERFILE2':
    done(mode='bad')
hsize = struct.unpack_from('<Q', d, 8)[0]
if hsize == 16:
    out['mode'] = 'pipe'
    off, end = 16, len(d)
elif hsize >= 104 and len(d) >= 104:
    out['mode'] = 'file'
    doff, dsize = struct.unpack_from('<QQ', d, 40)
    feats = sum(bin(b).count('1') for b in d[72:104])
    out.update(data_offset=doff, data_size=dsize, features=feats)
    off = doff
    end = doff + dsize if dsize and feats else len(d)
    end = min(end, len(d))
    if dsize and feats:
        # The feature sections' table follows the data: {offset, size}
        # per feature bit set; feat_end is where the last section ends.
        t = doff + dsize
        if t + 16 * feats > len(d):
            out['feat_end'] = 'beyond-eof'
        else:
            secs = [struct.unpack_from('<QQ', d, t + 16 * i) for i in range(feats)]
            out['feat_end'] = max([t + 16 * feats] + [o + z for o, z in secs])
else:
    done(mode='bad')
start = off
n = samples = lost_recs = lost = lost_samples = 0
while off + 8 <= end:
    typ, misc, size = struct.unpack_from('<IHH', d, off)
    if size < 8 or off + size > end:
        break
    extra = 0
    if typ == 66 and size >= 12:     # HEADER_TRACING_DATA: payload follows
        s = struct.unpack_from('<I', d, off + 8)[0]
        extra = (s + 7) & ~7
    elif typ == 71 and size >= 16:   # AUXTRACE: payload follows
        extra = struct.unpack_from('<Q', d, off + 8)[0]
    if off + size + extra > end:
        break
    n += 1
    if typ == 9:
        samples += 1
    elif typ == 2 and size >= 24:
        lost_recs += 1
        lost += struct.unpack_from('<Q', d, off + 16)[0]
    elif typ == 13 and size >= 16:
        lost_samples += struct.unpack_from('<Q', d, off + 8)[0]
    off += size + extra
done(walked=off - start, tail=end - off, records=n, samples=samples,
     lost_records=lost_recs, lost=lost, lost_samples=lost_samples)
PY
}
# walk_get WORDS KEY: the value of KEY in data_walk's output WORDS.
walk_get() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
# perf_samples FILE: number of SAMPLE events perf report --stats counts.
perf_samples() { perf report --stats -i "$1" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }
# evlist_attr FILE [N]: 'perf evlist -v' line N (default 1) of FILE as one
# "key=value" per line, the sample_type and read_format flags one per line
# as "sample_type:FLAG"; values of period/freq/size/config kept as they are.
evlist_attr() {
	perf evlist -v -i "$1" 2>/dev/null | sed -n "${2:-1}p" |
		sed 's/{ sample_period, sample_freq }/sample_period_freq/; s/^.*: type: /type: /' |
		tr ',' '\n' | sed 's/^ *//' | awk -F': ' '
			$1 == "sample_type" || $1 == "read_format" || $1 == "branch_sample_type" {
				n = split($2, f, "|"); for (i = 1; i <= n; i++) print $1 ":" f[i]; next }
			NF { print $1 "=" $2 }' | sort
}

# dl_workload: the dlopen workload with libdlwork.so in its directory: the
# Makefile's, or both built into $TMP/dl.
dl_workload() {
	local src
	if [ -x "$WORKLOADS/dlopen" ] && [ -f "$WORKLOADS/libdlwork.so" ]; then
		echo "$WORKLOADS/dlopen"
		return 0
	fi
	src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/workloads"
	mkdir -p "$TMP/dl"
	cc -std=gnu11 -O1 -g -fPIC -shared -fno-omit-frame-pointer -fno-inline -o "$TMP/dl/libdlwork.so" \
		"$src/libdlwork.c" >&2 &&
		cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMP/dl/dlopen" "$src/dlopen.c" >&2 &&
		echo "$TMP/dl/dlopen"
}
# fold < perf script output (the default fields, with -g): one
# "comm;outermost;...;leaf COUNT" line per distinct stack (frame text as
# printed, offsets cut, samples counted), sorted. NOT FlameGraph's
# stackcollapse-perf.pl (no DSO names for [unknown], no periods, no tidying):
# only for comparing two outputs of perf script's format with each other.
# What FlameGraph makes of a file is tested against the real script only.
fold() {
	awk 'function flush(  s, i) {
			if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
			n = 0
		}
		/^[ \t]*$/ { flush(); next }
		/^\t/ {
			l = $0
			sub(/^[ \t]+[0-9a-f]+ /, "", l)
			sub(/ \([^()]*\)$/, "", l)
			sub(/\+0x[0-9a-f]+$/, "", l)
			f[++n] = l
			next
		}
		{ flush(); comm = $1 }
		END { flush(); for (s in c) print s, c[s] }' | sort
}
# comparison_workloads PREFIX: the five workloads the report and script
# suites compare with perf, built into hot, threads, forks, ktime and
# dlopen, with CMD[NAME] the command line of each (about 0.3 s at 4000 Hz:
# over a thousand samples). False, after a 'not ok PREFIX-workload', if one
# cannot be built.
comparison_workloads() {
	local p=$1
	hot=$(workload hot) || { not_ok "$p-workload" "cannot build tests/workloads/hot.c"; return 1; }
	threads=$(workload threads) || { not_ok "$p-workload" "cannot build tests/workloads/threads.c"; return 1; }
	forks=$(workload forks) || { not_ok "$p-workload" "cannot build tests/workloads/forks.c"; return 1; }
	ktime=$(workload kernel-time) || { not_ok "$p-workload" "cannot build tests/workloads/kernel-time.c"; return 1; }
	dlopen=$(dl_workload) || { not_ok "$p-workload" "cannot build tests/workloads/dlopen.c and libdlwork.c"; return 1; }
	declare -gA CMD=(
		[hot]="$hot 300"
		[threads]="$threads 2 300"
		[forks]="$forks 3 100"
		[dlopen]="$dlopen 300"
		[ktime]="$ktime 300"
	)
}
