#!/usr/bin/env bash
# Inline frames (perf's --inline), on a program built -O2 -g whose hot
# loop is two always_inline functions deep (leaf in mid in work). pcl
# shows them with --inline (off by default: docs/srcline.md says why):
#  - frame-pointer files (perf's and pcl's): by default no inline frame,
#    as perf 6.1 (which shows none there even with --inline); with pcl's
#    --inline every user frame is expanded, and each expansion is exactly
#    addr2line -f -i's records for the address (names, innermost first,
#    and each level's FILE:LINE), what perf builds its inline frames from;
#    report --inline shows 'mid (inlined)' and 'leaf (inlined)' entries
#    and graph lines;
#  - --call-graph dwarf files (perf's): pcl --inline's script (also with
#    -F +srcline) and children report equal perf's default (inline frames
#    included), pcl's default equals perf's --no-inline. These need the
#    DWARF unwinder in the resolver: without it they skip and say so.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip srcline-inline "perf is not installed"
	exit 0
fi
for c in cc addr2line python3; do
	if ! command -v $c >/dev/null 2>&1; then
		skip srcline-inline "$c is not installed"
		exit 0
	fi
done
. "$(dirname "$0")/report-lib.sh"

cp "$(dirname "$0")/srcline-inl.c" "$TMP/inl.c"
if ! cc -O2 -g -fno-omit-frame-pointer -o "$TMP/inl" "$TMP/inl.c"; then
	not_ok srcline-inline-build "cc could not build the workload"
	exit 0
fi

# check_expansions ID [BINARY]: pcl script --inline -F ip,sym,dso,srcline of
# $TMP/ID.data: every frame of the workload's own code (BINARY, $TMP/inl by
# default) is its address's addr2line -f -i records, innermost first (a
# caller's return address minus 1).
check_expansions() {
	local id=$1 bin=${2:-$TMP/inl}
	run_long "x-$id" 60 "$PCL" script --inline -F ip,sym,dso,srcline -i "$TMP/$id.data"
	if [ "$RC" -ne 0 ]; then
		not_ok "srcline-inline-expansion-$id" "pcl script --inline: exit $RC" "$(show "$TMP/x-$id.err")"
		return
	fi
	python3 - "$TMP/x-$id.out" "$bin" >"$TMP/x-$id.cmp" 2>&1 <<'PY'
import os, re, subprocess, sys
out, binary = sys.argv[1], sys.argv[2]
lines = open(out).read().split("\n")
# frames: (ip, name, dso or None when inlined, srcline)
frames, i = [], 0
frame_re = re.compile(r"^\t +([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)?(?: \((.*)\))?$")
samples, cur = [], []
while i < len(lines):
    m = frame_re.match(lines[i])
    if m:
        ip, name, dso = m.group(1), m.group(2), m.group(3)
        src, inlined = None, False
        if i + 1 < len(lines) and lines[i + 1].startswith("  "):
            src = lines[i + 1][2:]
            i += 1
            if src.endswith(" (inlined)"):
                src, inlined = src[: -len(" (inlined)")], True
        cur.append((ip, name, dso, src, inlined))
    elif not lines[i].strip() and cur:
        samples.append(cur)
        cur = []
    i += 1
if cur:
    samples.append(cur)
# group consecutive frames of one address in the workload; a group after
# the sample's first user-space one is a return address: its inline frames
# are those of the address minus 1, inside the call
want = {}
groups = []
for s in samples:
    j = 0
    user = False
    while j < len(s):
        k = j
        while k + 1 < len(s) and s[k + 1][0] == s[j][0] and s[k][2] is None:
            k += 1
        g = s[j : k + 1]
        look = int(g[0][0], 16) - (1 if user else 0)
        if not (g[-1][2] or "").startswith("[kernel"):
            user = True
        if g[-1][2] == binary:
            groups.append(("%x" % look, g))
        j = k + 1
addrs = sorted({a for a, g in groups})
if not addrs:
    print("no frame of %s in the output" % binary)
    sys.exit(1)
a2l = subprocess.run(["addr2line", "-e", binary, "-a", "-i", "-f"] + ["0x" + a for a in addrs],
                     capture_output=True, text=True, check=True).stdout.split("\n")
recs, cur_a = {}, None
j = 0
while j < len(a2l):
    l = a2l[j]
    if l.startswith("0x"):
        cur_a = "%x" % int(l, 16)
        recs[cur_a] = []
        j += 1
        continue
    if not l:
        break
    fn, fl = l, a2l[j + 1]
    f, _, ln = fl.rpartition(":")
    ln = ln.split(" ")[0]  # perf reads "21 (discriminator 3)" as 21
    recs[cur_a].append((fn, "%s:%s" % (os.path.basename(f), "0" if ln == "?" else ln)))
    j += 2
bad = 0
expanded = 0
for a, g in groups:
    got = [(f[1], f[3]) for f in g]
    exp = recs.get(a, [])
    # no line for the address (a PLT slot): addr2line knows no function
    # either, pcl names the symbol and gives perf's BINARY[ADDR] form
    if exp == [("??", "??:0")] and len(got) == 1 and re.fullmatch(r".*\[[0-9a-f]+\]", got[0][1] or ""):
        exp = got
    if got != exp:
        if bad < 10:
            print("address %s (looked up at %s): pcl %s, addr2line %s" % (g[0][0], a, got, exp))
        bad += 1
    if any(not f[4] for f in g[:-1]) or g[-1][4]:
        if bad < 10:
            print("address %s: only the outer frame may lack (inlined): %s" % (g[0][0], g))
        bad += 1
    if len(g) > 1:
        expanded += 1
print("%d frames of the workload, %d with inline frames, %d differ" % (len(groups), expanded, bad))
sys.exit(1 if bad or not expanded else 0)
PY
	if [ $? -eq 0 ]; then
		ok "srcline-inline-expansion-$id"
	else
		not_ok "srcline-inline-expansion-$id" \
			"pcl script --inline's inline frames against addr2line -f -i:" "$(show "$TMP/x-$id.cmp" 20)"
	fi
}

for by in perf pcl; do
	id=fp-$by
	record_to srcline-inline "$by" "$id" -e cpu-clock -F 4000 -g -o "$TMP/$id.data" -- "$TMP/inl" 200000 ||
		continue
	F=$TMP/$id.data
	# perf 6.1 shows no inline frame in frame-pointer chains, even with --inline
	run_long "d-$id.perf" 60 perf script --inline -i "$F"
	run_long "d-$id.pcl" 60 "$PCL" script -i "$F"
	if grep -q '(inlined)' "$TMP/d-$id.perf.out"; then
		not_ok "srcline-inline-fp-default-$id" "oracle: perf script --inline shows inline frames here:" \
			"$(grep -m5 '(inlined)' "$TMP/d-$id.perf.out")"
	elif grep -q '(inlined)' "$TMP/d-$id.pcl.out"; then
		not_ok "srcline-inline-fp-default-$id" "pcl script shows inline frames in a frame-pointer file:" \
			"$(grep -m5 '(inlined)' "$TMP/d-$id.pcl.out")"
	else
		ok "srcline-inline-fp-default-$id"
	fi
	check_expansions "$id"
	# the leaf repair of pcl's -g files (fpleaf.c) puts main after work's inline frames too
	run_long "m0-$id" 60 "$PCL" script -F ip,sym -i "$F"
	run_long "m-$id" 60 "$PCL" script --inline -F ip,sym -i "$F"
	a=$(grep -A1 -E '[0-9a-f] work$' "$TMP/m0-$id.out" | grep -cE '[0-9a-f] main$')
	c=$(grep -A1 -E '[0-9a-f] work$' "$TMP/m-$id.out" | grep -cE '[0-9a-f] main$')
	if [ "$a" -eq "$c" ]; then
		ok "srcline-inline-fp-callers-$id"
	else
		not_ok "srcline-inline-fp-callers-$id" \
			"main follows work $a times in pcl script, $c times with --inline"
	fi
	run_long "r-$id" 60 "$PCL" report --stdio --inline -i "$F"
	if grep -qE '^ +[0-9.]+% +[0-9.]+% .*\[\.\] mid \(inlined\)$' "$TMP/r-$id.out" &&
		grep -qE '^ +[0-9.]+% +[0-9.]+% .*\[\.\] leaf \(inlined\)$' "$TMP/r-$id.out" &&
		grep -qE '^ +(\||-)* *-*leaf \(inlined\)$|--leaf \(inlined\)$' "$TMP/r-$id.out"; then
		ok "srcline-inline-report-$id"
	else
		not_ok "srcline-inline-report-$id" \
			"pcl report --inline: no 'mid (inlined)' and 'leaf (inlined)' entries and graph lines:" \
			"$(show "$TMP/r-$id.out" 40)"
	fi
done

# A frame-pointer caller's entry is a return address, after the call: its
# inline frames are those of the call (the address minus 1). In
# srcline-ret.c, outer calls the leaf hot from the always_inline wrap, and
# the instruction after that call is outer's own: --inline must show
# hot <- wrap (inlined) <- outer, never hot <- outer. Built twice: with
# leaf frame pointers (the kernel's chain has the entry) and without (the
# leaf repair of pcl's -g files inserts it).
cp "$(dirname "$0")/srcline-ret.c" "$TMP/ret.c"
for v in fp leaf; do
	flags=-DKEEP_FP
	[ $v = leaf ] && flags=
	if ! cc -O2 -g -fno-omit-frame-pointer $flags -o "$TMP/ret-$v" "$TMP/ret.c"; then
		not_ok srcline-inline-return-address-$v "cc could not build srcline-ret.c"
		continue
	fi
	# not record_to: its --no-fp-leaf would leave the leaf's chain without outer
	run_long "rec-ret-$v" 60 "$PCL" record -q -e cpu-clock -F 4000 -g -o "$TMP/ret-$v.data" -- "$TMP/ret-$v" 3000
	if [ "$RC" -ne 0 ]; then
		not_ok srcline-inline-return-address-$v "pcl record: exit $RC" "$(show "$TMP/rec-ret-$v.err")"
		continue
	fi
	run_long "ret-$v" 60 "$PCL" script --inline -F ip,sym -i "$TMP/ret-$v.data"
	n=$(grep -A1 -E '[0-9a-f] hot$' "$TMP/ret-$v.out" | grep -cE '[0-9a-f] (wrap \(inlined\)|outer)$')
	w=$(grep -A1 -E '[0-9a-f] hot$' "$TMP/ret-$v.out" | grep -cE '[0-9a-f] wrap \(inlined\)$')
	if [ "$RC" -ne 0 ] || [ "$n" -lt 10 ]; then
		not_ok srcline-inline-return-address-$v \
			"pcl script --inline: exit $RC, $n samples with hot's caller:" \
			"$(show "$TMP/ret-$v.out" 20)"
	elif [ "$w" -ne "$n" ]; then
		not_ok srcline-inline-return-address-$v \
			"hot's caller is wrap (inlined) in $w of $n samples, outer in the others:" \
			"$(grep -m3 -A2 -E '[0-9a-f] hot$' "$TMP/ret-$v.out")"
	else
		ok srcline-inline-return-address-$v
	fi
	check_expansions ret-$v "$TMP/ret-$v"
done

# DWARF: perf's default shows inline frames; pcl --inline must equal it.
if record_to srcline-inline perf dw --call-graph dwarf -e cpu-clock -F 2000 -o "$TMP/dw.data" -- "$TMP/inl" 100000; then
	F=$TMP/dw.data
	run_long "dw.perf" 60 perf script -i "$F"
	run_long "dw.pcl" 60 "$PCL" script --inline -i "$F"
	if ! grep -q '(inlined)' "$TMP/dw.perf.out"; then
		not_ok srcline-inline-dwarf "oracle: perf script shows no inline frame on a dwarf file:" \
			"$(show "$TMP/dw.perf.out")"
	elif ! grep -qE '^\s+[0-9a-f]+ (work|main)\+' "$TMP/dw.pcl.out"; then
		skip srcline-inline-dwarf "pcl does not unwind --call-graph dwarf samples here (no user frames in pcl script): the DWARF unwinder is not wired into the resolver"
	else
		# pcl's reader may add one warning line (samples whose unwinding stopped early)
		grep -v '^pcl: warning: .*DWARF unwinding' "$TMP/dw.pcl.out" >"$TMP/dw.pcl.cmp"
		# a PLT slot is NAME@plt in pcl, _init+OFF in perf at times (see
		# report-lib.sh): main's snprintf call lands there now and then
		plt_slots "$TMP/dw.perf.out" "$TMP/dw.pcl.cmp"
		diff_or_ok srcline-inline-dwarf-script "$TMP/dw.perf.out" "$TMP/dw.pcl.cmp" perf pcl
		run_long "dw-srcline.perf" 60 perf script -F +srcline -i "$F"
		run_long "dw-srcline.pcl" 60 "$PCL" script --inline -F +srcline -i "$F"
		plt_slots "$TMP/dw-srcline.perf.out" "$TMP/dw-srcline.pcl.out"
		diff_or_ok srcline-inline-dwarf-script-srcline "$TMP/dw-srcline.perf.out" \
			"$TMP/dw-srcline.pcl.out" perf pcl
		run_long "dw-no.perf" 60 perf script --no-inline -i "$F"
		run_long "dw-no.pcl" 60 "$PCL" script -i "$F"
		plt_slots "$TMP/dw-no.perf.out" "$TMP/dw-no.pcl.out"
		diff_or_ok srcline-inline-dwarf-default "$TMP/dw-no.perf.out" "$TMP/dw-no.pcl.out" perf pcl
		for args in "" "--no-children" "--sort srcline"; do
			tag=dw-rep$(echo "$args" | tr -cd 'a-z')
			run_long "$tag.perf" 60 perf report --stdio $args -i "$F"
			PRC=$RC
			run_long "$tag.pcl" 60 "$PCL" report --stdio --inline $args -i "$F"
			CRC=$RC
			# the header's unwinding lines are pcl's own
			perl -0pi -e 's/^# DWARF unwinding[^\n]*\n#\n//m' "$TMP/$tag.pcl.out"
			plt_slots "$TMP/$tag.perf.out" "$TMP/$tag.pcl.out"
			# perf 6.1 at times splits one symbol into two entries when
			# its call graph holds inline frames (its sort of inline
			# symbols is not a total order; with -v it merges them, as
			# pcl does): the text is then not comparable, the entries
			# are, perf's two summed
			# (an entry perf shows more times than pcl; two symbols of one
			# name, as two PLT slots, are two entries in both)
			ents() { grep -E '^ +[0-9.]+%.* \[[.k]\] ' "$1" | sed -E 's/^ +([0-9.]+% +)+//' | sort; }
			dup=$(comm -23 <(ents "$TMP/$tag.perf.out") <(ents "$TMP/$tag.pcl.out") | uniq | head -1)
			dup=$(ents "$TMP/$tag.perf.out" | uniq -d | grep -Fx -- "$dup" || true)
			if [ -n "$dup" ]; then
				echo "# perf shows '$dup' as two entries: entries compared, perf's summed"
				ROWS_MERGE=$dup compare "srcline-inline-dwarf-report$tag" "$tag" rows "--inline $args"
			else
				compare "srcline-inline-dwarf-report$tag" "$tag" text "--inline $args"
			fi
		done
	fi
fi
exit 0
