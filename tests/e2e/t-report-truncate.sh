#!/usr/bin/env bash
# pcl report and pcl script on cut and corrupted perf.data files: never a
# crash, a sanitizer report or a hang.
#
# Truncation sweep: every prefix of a small file, in 64 steps across the
# file and byte by byte around the header/attrs/data boundary and the
# data/feature-sections boundary, for a pcl-recorded file, a perf-recorded
# one and a perf pipe-mode one. For each prefix 'pcl report --stdio -i
# PREFIX' and 'pcl script -i PREFIX' either
#   - exit 0 with exactly one line on stderr, a warning that says the file
#     is truncated (cut, incomplete, ...), and a partial report; or
#   - exit non-zero (no signal) with exactly one line on stderr, 'pcl...'.
# A pipe-mode stream cut between two records is a whole stream to its
# reader: there, exit 0 with no warning is right too. The samples pcl script
# prints of the prefixes it reads grow with the prefix and never pass the
# whole file's.
#
# Corruption: random bytes over the data section, a record size of 0 or
# huge, an unknown record type, a call chain longer than its record, header
# and feature-section offsets and sizes past the end of the file: a clean
# one-line error (naming an offset, for a bad record size) or a report (a
# bad record size says so on stderr), never a crash.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-truncate "perf is not installed (it records the perf-made files)"
	exit 0
fi
if ! has_cmd report; then
	not_ok report-truncate-command "'$PCL help' lists no report command (and 'pcl help report' fails)"
	exit 0
fi
has_cmd script && have_script=1 || have_script=0
if ! command -v python3 >/dev/null 2>&1; then
	skip report-truncate "python3 is not installed (it walks and corrupts the files)"
	exit 0
fi
hot=$(workload hot) || { not_ok report-truncate-workload "cannot build tests/workloads/hot.c"; exit 0; }

# died FILE RC: true if RC says a signal or a timeout (perf's own exit
# status for an error is 255, no signal), or FILE holds sanitizer output.
died() {
	[ "$2" -eq 124 ] || { [ "$2" -gt 128 ] && [ "$2" -le 192 ]; } ||
		grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"
}
TRUNC_WORDS='truncat|\bcut\b|incomplete|short|ends? (early|before|mid)|premature|unexpected end|end of file|eof'

# --- the files ----------------------------------------------------------------------
# 50 ms of hot at 1000 Hz: a few tens of samples, a file of a few KB.
files=()
run_long rec-perf 60 perf record -q --no-bpf-event -F 1000 -o "$TMP/perf.data" -- "$hot" 50
if [ "$RC" -eq 0 ] && [ -s "$TMP/perf.data" ]; then files+=(perf); else
	not_ok report-truncate-perf "oracle: perf record failed (exit $RC)" "$(show "$TMP/rec-perf.err")"; fi
run_long rec-perfg 60 perf record -q --no-bpf-event -g -F 1000 -o "$TMP/perf-g.data" -- "$hot" 50
if [ "$RC" -ne 0 ] || [ ! -s "$TMP/perf-g.data" ]; then
	not_ok report-truncate-perf-g "oracle: perf record -g failed (exit $RC)" "$(show "$TMP/rec-perfg.err")"
fi
timeout -k 5 60 perf record -q --no-bpf-event -F 1000 -o - -- "$hot" 50 >"$TMP/pipe.data" 2>"$TMP/rec-pipe.err"
RC=$?
if [ "$RC" -eq 0 ] && [ -s "$TMP/pipe.data" ]; then files+=(pipe); else
	not_ok report-truncate-pipe "oracle: perf record -o - failed (exit $RC)" "$(show "$TMP/rec-pipe.err")"; fi
if has_record; then
	run_long rec-pcl 60 "$PCL" record -q -F 1000 -o "$TMP/pcl.data" -- "$hot" 50
	if [ "$RC" -eq 0 ] && [ -s "$TMP/pcl.data" ]; then files+=(pcl); else
		not_ok report-truncate-pcl "pcl record failed (exit $RC)" "$(show "$TMP/rec-pcl.err")"; fi
else
	skip report-truncate-pcl "this pcl has no record command"
fi

# layout.py FILE: "MODE DATA_OFFSET DATA_END NFEAT" then, on a second line,
# the offsets at which a pipe-mode stream can end whole: the end of its
# header and of each record.
cat >"$TMP/layout.py" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
hsize = struct.unpack_from('<Q', d, 8)[0]
if hsize == 16:
    mode, off, end, nfeat = 'pipe', 16, len(d), 0
else:
    mode = 'file'
    off, size = struct.unpack_from('<QQ', d, 40)
    end = off + size
    nfeat = sum(bin(b).count('1') for b in d[72:104])
print(mode, off, end, nfeat)
ends = [off] if mode == 'pipe' else []
while off + 8 <= end:
    typ, misc, size = struct.unpack_from('<IHH', d, off)
    if size < 8:
        break
    extra = 0
    if typ == 66:   # HEADER_TRACING_DATA: its payload follows the record
        extra = (struct.unpack_from('<I', d, off + 8)[0] + 7) & ~7
    off += size + extra
    ends.append(off)
print(' '.join(map(str, ends)))
PY

# judge TAG RC BOUNDARY: classify one run's result ($TMP/TAG.out,
# $TMP/TAG.err, exit RC): BAD is empty if it is right, else says what is
# wrong. BOUNDARY=1 if a stream cut there reads as whole (pipe mode,
# between records).
judge() {
	local tag=$1 rc=$2 boundary=$3 n first
	local -a lines
	mapfile -t lines < <(grep . "$TMP/$tag.err")
	n=${#lines[@]}
	first=${lines[0]:-}
	first=${first:0:160}
	BAD=
	if died "$TMP/$tag.err" "$rc"; then
		if [ "$rc" -eq 124 ]; then BAD="hang (killed after 10 s)"; else
			BAD="crash: exit $rc, stderr: $(grep -m1 -E 'Sanitizer|runtime error' "$TMP/$tag.err" | cut -c1-160)${first:+ / $first}"; fi
	elif [ "$rc" -eq 0 ]; then
		if [ "$boundary" = 1 ] && { [ "$n" -eq 0 ] || { [ "$n" -eq 1 ] && [[ $first == *"has no samples"* ]]; }; }; then
			return # a whole stream (before its first sample: it says so, as perf)
		elif [ "$n" -ne 1 ]; then
			BAD="exit 0 with $n stderr lines (want 1 warning that the file is truncated): $first"
		elif ! grep -qiE "$TRUNC_WORDS" <<<"$first"; then
			BAD="exit 0, the warning does not say the file is truncated: $first"
		fi
	elif [ "$n" -ne 1 ]; then
		BAD="exit $rc with $n stderr lines (want 1): $first"
	elif [[ $first != pcl* ]]; then
		BAD="exit $rc, the error does not start 'pcl': $first"
	fi
}

# pcl reads the kernel's symbols from /proc/kallsyms on each run, which
# costs the kernel ~0.1 s: most runs give it a short copy with --kallsyms
# instead (if this pcl's report, or script, takes the option; if not, that
# command's byte-by-byte sweep is thinned out to every 16th byte). Every
# 4th of the 64 steps across the file reads /proc/kallsyms.
head -200 /proc/kallsyms >"$TMP/kallsyms"
declare -A KS=([report]="" [script]="")
for cmd in report script; do
	[ $cmd = script ] && [ "$have_script" = 0 ] && continue
	[ ${#files[@]} -gt 0 ] || continue
	if "$PCL" $cmd --kallsyms "$TMP/kallsyms" -i "$TMP/${files[0]}.data" >/dev/null 2>&1; then
		KS[$cmd]=$TMP/kallsyms
	else
		skip report-truncate-dense-$cmd "pcl $cmd --kallsyms FILE fails: its byte-by-byte sweep is thinned out to every 16th byte"
	fi
done

# sweep KIND: the truncation sweep of $TMP/KIND.data (report and script).
sweep() {
	local kind=$1 f=$TMP/$1.data size mode doff dend nfeat ends n k p cmd tag step
	local -a args
	size=$(stat -c %s "$f")
	{
		read -r mode doff dend nfeat
		read -r ends
	} < <(python3 "$TMP/layout.py" "$f")
	# The prefix lengths, "LEN STEP": 64 steps across the file (STEP=1,
	# or 2 for every 4th), each byte of the header, the attrs and the
	# first records, each byte around the end of the data, every 4th over
	# the feature sections' table after it (STEP=0). Report reads them
	# all, script the steps and every 4th byte of the others.
	{
		for k in $(seq 0 63); do echo "$((size * k / 64)) $((k % 4 ? 1 : 2))"; done
		seq 0 $((doff + 72)) | sed 's/$/ 0/'
		[ "$mode" = file ] && { seq $((dend - 24)) $((dend + 40)); seq $((dend + 44)) 4 $((dend + 16 * nfeat + 24)); } |
			sed 's/$/ 0/'
	} | awk -v s="$size" '$1 >= 0 && $1 < s' | sort -k1,1n -k2,2nr | awk '!seen[$1]++' >"$TMP/$kind.lens"
	for cmd in report script; do
		[ $cmd = script ] && [ "$have_script" = 0 ] && continue
		: >"$TMP/$kind.$cmd.bad"
		: >"$TMP/$kind.$cmd.counts"
		n=0
		while read -r p step; do
			args=()
			[ $cmd = report ] && args=(--stdio)
			if [ "$step" = 0 ] && [ -z "${KS[$cmd]}" ]; then
				[ $((p % 16)) -eq 0 ] || continue
			elif [ "$step" = 0 ] && [ $cmd = script ]; then
				[ $((p % 4)) -eq 0 ] || continue
			fi
			[ "$step" != 2 ] && [ -n "${KS[$cmd]}" ] && args+=(--kallsyms "${KS[$cmd]}")
			n=$((n + 1))
			head -c "$p" "$f" >"$TMP/prefix.data"
			tag=$kind.$cmd.cut
			timeout -k 2 10 "$PCL" $cmd "${args[@]}" -i "$TMP/prefix.data" >"$TMP/$tag.out" 2>"$TMP/$tag.err"
			RC=$?
			boundary=0
			[ "$mode" = pipe ] && [[ " $ends " == *" $p "* ]] && boundary=1
			judge "$tag" "$RC" "$boundary"
			[ -n "$BAD" ] && echo "cut at $p of $size (pcl $cmd ${args[*]}): $BAD" >>"$TMP/$kind.$cmd.bad"
			[ $cmd = script ] && [ "$RC" -eq 0 ] && echo "$p $(grep -c . "$TMP/$tag.out")" >>"$TMP/$kind.$cmd.counts"
		done <"$TMP/$kind.lens"
		if [ -s "$TMP/$kind.$cmd.bad" ]; then
			not_ok "report-truncate-$kind-$cmd" "pcl $cmd -i PREFIX of a $mode-mode file of $size bytes (data $doff..$dend):" \
				"$(wc -l <"$TMP/$kind.$cmd.bad") of $n prefixes wrong; want exit 0 with one warning that the file is truncated," \
				"or a non-zero exit with one 'pcl...' line:" "$(head -12 "$TMP/$kind.$cmd.bad")"
		else
			ok "report-truncate-$kind-$cmd"
		fi
	done
	# The whole file: exit 0, no complaint, the samples.
	for cmd in report script; do
		[ $cmd = script ] && [ "$have_script" = 0 ] && continue
		if [ $cmd = report ]; then run "$kind.whole.$cmd" "$PCL" report --stdio -i "$f"; else
			run "$kind.whole.$cmd" "$PCL" script -i "$f"; fi
		if [ "$RC" -eq 0 ] && [ ! -s "$TMP/$kind.whole.$cmd.err" ] && [ -s "$TMP/$kind.whole.$cmd.out" ] &&
			{ [ $cmd = script ] || grep -q '^# Samples: ' "$TMP/$kind.whole.$cmd.out"; }; then
			ok "report-truncate-$kind-whole-$cmd"
		else
			not_ok "report-truncate-$kind-whole-$cmd" "pcl $cmd -i FILE on the whole $kind file: exit $RC (want 0)," \
				"stdout $(wc -l <"$TMP/$kind.whole.$cmd.out") lines (want the samples; from report, a '# Samples:' line), stderr (want none):" \
				"$(show "$TMP/$kind.whole.$cmd.err")" "stdout:" "$(show "$TMP/$kind.whole.$cmd.out" 12)"
		fi
	done
	# pcl script's samples of the prefixes: never fewer for a longer prefix,
	# never more than the whole file's.
	[ "$have_script" = 1 ] || return
	local whole bad
	whole=$(grep -c . "$TMP/$kind.whole.script.out")
	bad=$(awk -v w="$whole" '$2 > w { print "cut at " $1 ": " $2 " lines, the whole file has " w; exit }
		NR > 1 && $2 < last { print "cut at " $1 ": " $2 " lines, fewer than the " last " of the cut at " lp; exit }
		{ last = $2; lp = $1 }' "$TMP/$kind.script.counts")
	if [ -n "$bad" ]; then
		not_ok "report-truncate-$kind-script-partial" "pcl script on the prefixes it reads (exit 0) of the $kind file:" "$bad"
	else
		ok "report-truncate-$kind-script-partial"
	fi
}
for kind in "${files[@]}"; do
	sweep "$kind"
done

# pipe mode through a pipe: pcl report -i - < PREFIX, in 32 steps.
if [[ " ${files[*]} " == *" pipe "* ]]; then
	f=$TMP/pipe.data
	size=$(stat -c %s "$f")
	ends=$(python3 "$TMP/layout.py" "$f" | sed -n 2p)
	: >"$TMP/stdin.bad"
	for k in $(seq 0 31); do
		p=$((size * k / 32))
		boundary=0
		[[ " $ends " == *" $p "* ]] && boundary=1
		head -c "$p" "$f" | timeout -k 2 10 "$PCL" report --stdio -i - >"$TMP/stdin.out" 2>"$TMP/stdin.err"
		judge stdin "$?" "$boundary"
		[ -n "$BAD" ] && echo "cut at $p of $size: $BAD" >>"$TMP/stdin.bad"
	done
	if [ -s "$TMP/stdin.bad" ]; then
		not_ok report-truncate-pipe-stdin "head -c PREFIX pipe.data | pcl report --stdio -i -:" "$(head -12 "$TMP/stdin.bad")"
	else
		ok report-truncate-pipe-stdin
	fi
fi

# --- corrupted files ----------------------------------------------------------------
# corrupt.py MODE IN OUT [SEED]: a copy of IN with one kind of damage; exit 3
# if IN has nothing to damage that way. Prints the offset it damaged.
cat >"$TMP/corrupt.py" <<'PY'
import random, struct, sys
mode, src, dst = sys.argv[1:4]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
d = bytearray(open(src, 'rb').read())
doff, dsize = struct.unpack_from('<QQ', d, 40)
dend = doff + dsize
recs = []   # (offset, type, size)
off = doff
while off + 8 <= dend:
    typ, misc, size = struct.unpack_from('<IHH', d, off)
    if size < 8:
        break
    recs.append((off, typ, size))
    off += size
samples = [r for r in recs if r[1] == 9]
mid = samples[len(samples) // 2] if samples else None
at = None
if mode == 'random':
    rnd = random.Random(seed)
    for _ in range(16):
        at = rnd.randrange(doff, dend)
        d[at] = rnd.randrange(256)
    at = doff
elif mode == 'size0-first':
    at = recs[0][0]
    struct.pack_into('<H', d, at + 6, 0)
elif mode in ('size0-mid', 'size-huge', 'size-odd', 'type-unknown'):
    if not mid:
        sys.exit(3)
    at = mid[0]
    if mode == 'type-unknown':
        struct.pack_into('<I', d, at, 0x7777)
    else:
        struct.pack_into('<H', d, at + 6, {'size0-mid': 0, 'size-huge': 0xfff8, 'size-odd': 13}[mode])
elif mode in ('nr-huge', 'nr-past'):
    # the call chain's nr: after the fixed fields that precede it
    asz = struct.unpack_from('<Q', d, 16)[0]
    aoff = struct.unpack_from('<Q', d, 24)[0]
    st = struct.unpack_from('<Q', d, aoff + 24)[0]
    if not st & (1 << 5) or st & (1 << 4) or not mid:
        sys.exit(3)
    before = [16, 0, 1, 2, 3, 6, 9, 7, 8]
    at = mid[0] + 8 + 8 * sum(1 for b in before if st & (1 << b))
    nr = 0xffffffffffffffff if mode == 'nr-huge' else (mid[2] - (at - mid[0])) // 8
    struct.pack_into('<Q', d, at, nr)
elif mode == 'data-size-huge':
    at = 48
    struct.pack_into('<Q', d, at, 1 << 40)
elif mode == 'data-offset-past':
    at = 40
    struct.pack_into('<Q', d, at, len(d) + 4096)
elif mode == 'attr-size-0':
    at = 16
    struct.pack_into('<Q', d, at, 0)
elif mode == 'attrs-size-huge':
    at = 32
    struct.pack_into('<Q', d, at, 1 << 40)
elif mode == 'attr-self-size':
    # perf_event_attr.size of the first attr
    at = struct.unpack_from('<Q', d, 24)[0] + 4
    struct.pack_into('<I', d, at, 0xfff0)
elif mode == 'ids-past':
    # the first attr's ids section: {offset, size} after the attr
    aoff = struct.unpack_from('<Q', d, 24)[0]
    asz = struct.unpack_from('<Q', d, 16)[0]
    at = aoff + asz - 16
    struct.pack_into('<QQ', d, at, len(d) + 8, 1 << 30)
elif mode in ('feat-past', 'feat-size-huge'):
    at = dend
    if sum(bin(b).count('1') for b in d[72:104]) == 0 or at + 16 > len(d):
        sys.exit(3)
    if mode == 'feat-past':
        struct.pack_into('<QQ', d, at, len(d) + 4096, 64)
    else:
        struct.pack_into('<Q', d, at + 8, 1 << 40)
else:
    sys.exit('unknown mode ' + mode)
open(dst, 'wb').write(d)
print(at)
PY

# damage NAME KIND MODE [SEED]: damage $TMP/KIND.data by MODE and check
# what report and script say. A bad record size must be said: a one-line
# error naming an offset, or a report with a warning.
damage() {
	local name=$1 kind=$2 mode=$3 seed=${4:-0} at cmd bad="" n first tag
	local -a args
	at=$(python3 "$TMP/corrupt.py" "$mode" "$TMP/$kind.data" "$TMP/bad.data" "$seed")
	case $? in
	0) ;;
	3) skip "$name" "the $kind file has nothing to damage by $mode"; return ;;
	*) not_ok "$name" "corrupt.py $mode failed on the $kind file"; return ;;
	esac
	for cmd in report script; do
		[ $cmd = script ] && [ "$have_script" = 0 ] && continue
		tag=bad.$cmd
		args=()
		[ $cmd = report ] && args=(--stdio)
		[ -n "${KS[$cmd]}" ] && args+=(--kallsyms "${KS[$cmd]}")
		timeout -k 2 10 "$PCL" $cmd "${args[@]}" -i "$TMP/bad.data" >"$TMP/$tag.out" 2>"$TMP/$tag.err"
		RC=$?
		n=$(grep -c . "$TMP/$tag.err")
		first=$(grep -m1 . "$TMP/$tag.err" | cut -c1-160)
		if died "$TMP/$tag.err" "$RC"; then
			[ "$RC" -eq 124 ] && bad+="$cmd: hang (killed after 10 s); " ||
				bad+="$cmd: crash, exit $RC: $(grep -m1 -E 'Sanitizer|runtime error' "$TMP/$tag.err" | cut -c1-160); "
		elif [ "$RC" -ne 0 ]; then
			if [ "$n" -ne 1 ] || [[ $first != pcl* ]]; then
				bad+="$cmd: exit $RC with $n stderr lines (want one 'pcl...' line): $first; "
			elif [[ $mode == size* ]] && ! grep -qiE 'offset|0x[0-9a-f]+|[0-9]{2,}' "$TMP/$tag.err"; then
				bad+="$cmd: exit $RC, the error names no offset: $first; "
			fi
		elif [[ $mode == size* ]] && [ "$n" -eq 0 ]; then
			bad+="$cmd: exit 0 and no word on stderr about the bad record at offset $at; "
		fi
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name" "pcl report/script on the $kind file damaged by $mode (at offset $at):" "$bad"
	fi
}
for kind in perf pcl perf-g; do
	[ -s "$TMP/$kind.data" ] || continue
	for seed in $(seq 1 8); do
		damage "report-truncate-corrupt-$kind-random-$seed" "$kind" random "$seed"
	done
	for mode in size0-first size0-mid size-huge size-odd type-unknown data-size-huge data-offset-past \
		attr-size-0 attrs-size-huge attr-self-size ids-past feat-past feat-size-huge; do
		damage "report-truncate-corrupt-$kind-$mode" "$kind" "$mode"
	done
done
if [ -s "$TMP/perf-g.data" ]; then
	damage report-truncate-corrupt-perf-g-nr-huge perf-g nr-huge
	damage report-truncate-corrupt-perf-g-nr-past perf-g nr-past
fi
