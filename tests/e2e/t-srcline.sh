#!/usr/bin/env bash
# Source lines: pcl report --sort srcline / srcfile (--full-source-path,
# children and not, with other keys), pcl script -F +srcline and -F
# ...,srcline, pcl diff -s srcline / srcfile, and the srcline / srcfile
# fields of the JSON report, each
# compared with perf 6.1 on the same file: files recorded by perf and by
# pcl (-g), of a program built -O2 -g with a hot loop in an inlined
# function (lines of an inlined function, of the function it is inlined
# into, of libc and of the kernel: perf's not-found forms SYM+OFF and
# DSO[ADDR]), and of the same program without -g (symbol-table answers).
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip srcline "perf is not installed"
	exit 0
fi
if ! command -v cc >/dev/null 2>&1; then
	skip srcline "no C compiler (cc) to build the workload"
	exit 0
fi
. "$(dirname "$0")/report-lib.sh"

cp "$(dirname "$0")/srcline-inl.c" "$TMP/inl.c"
if ! cc -O2 -g -fno-omit-frame-pointer -o "$TMP/inl" "$TMP/inl.c" ||
	! cc -O2 -fno-omit-frame-pointer -o "$TMP/inl-nodebug" "$TMP/inl.c"; then
	not_ok srcline-build "cc could not build the workload"
	exit 0
fi

cases=()
for bin in inl inl-nodebug; do
	if record_to srcline perf "$bin-perf" -e cpu-clock -F 4000 -g -o "$TMP/$bin-perf.data" -- "$TMP/$bin" 150000; then
		cases+=("$bin-perf")
	fi
	if record_to srcline pcl "$bin-pcl" -e cpu-clock -F 4000 -g -o "$TMP/$bin-pcl.data" -- "$TMP/$bin" 150000; then
		cases+=("$bin-pcl")
	fi
done

# The report rows: every key combination perf users type.
for id in "${cases[@]}"; do
	F=$TMP/$id.data
	n=0
	for args in "--no-children --sort srcline" "--no-children --sort srcfile" \
		"--no-children --sort comm,srcline,sym" "--no-children --sort dso,srcfile" \
		"--no-children --sort srcline --full-source-path" "--sort srcline" "--sort srcfile" \
		"--no-children --sort srcline -g none"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # $args is a list of options
		report_pair "$id-$n" "$F" $args
		# a PLT slot is NAME@plt in pcl, _init in perf (see report-lib.sh): so its SYM+OFF too
		plt_slots "$TMP/$id-$n.perf.out" "$TMP/$id-$n.pcl.out"
		compare "srcline-report-$id-$n" "$id-$n" text "$args"
	done
done

# pcl script -F +srcline and friends: line for line.
for id in "${cases[@]}"; do
	F=$TMP/$id.data
	n=0
	for args in "-F +srcline" "-F ip,sym,srcline" "-F comm,tid,ip,sym,dso,srcline -G" \
		"-F +srcline --full-source-path" "-F ip,srcline"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		run_long "s-$id-$n.perf" 60 perf script -i "$F" $args
		# shellcheck disable=SC2086
		run_long "s-$id-$n.pcl" 60 "$PCL" script -i "$F" $args
		if [ "$RC" -ne 0 ] || crashed "$TMP/s-$id-$n.pcl.err" "$RC"; then
			not_ok "srcline-script-$id-$n" "pcl script $args: exit $RC" "$(show "$TMP/s-$id-$n.pcl.err")"
		elif ! grep -q '^  ' "$TMP/s-$id-$n.perf.out"; then
			not_ok "srcline-script-$id-$n" "oracle: perf script $args printed no source line:" \
				"$(show "$TMP/s-$id-$n.perf.out")"
		else
			plt_slots "$TMP/s-$id-$n.perf.out" "$TMP/s-$id-$n.pcl.out"
			diff_or_ok "srcline-script-$id-$n" "$TMP/s-$id-$n.perf.out" "$TMP/s-$id-$n.pcl.out" perf pcl
		fi
	done
done

# A line of the debug build must be found: not everything may be a not-found form.
if [[ " ${cases[*]} " == *" inl-perf "* ]]; then
	if grep -qE '^  inl\.c:[0-9]+$' "$TMP/s-inl-perf-2.pcl.out"; then
		ok srcline-script-found
	else
		not_ok srcline-script-found "pcl script -F ip,sym,srcline shows no inl.c line:" \
			"$(show "$TMP/s-inl-perf-2.pcl.out")"
	fi
fi

# pcl diff shares the keys: its rows equal perf diff's, OLD perf's file, NEW pcl's.
if [[ " ${cases[*]} " == *" inl-perf "* && " ${cases[*]} " == *" inl-pcl "* ]]; then
	n=0
	for args in "-s srcline" "-s dso,srcline" "-s srcfile"; do
		n=$((n + 1))
		# in a shell of its own, whose stderr says so when perf aborts
		run_long "diff-$n.perf" 60 bash -c 'perf diff $1 "$2" "$3"; exit $?' - "$args" \
			"$TMP/inl-perf.data" "$TMP/inl-pcl.data"
		if [ "$RC" -ne 0 ]; then
			# perf 6.1's diff aborts now and then with srcfile (a double free)
			skip "srcline-diff-$n" "oracle: perf diff $args failed (exit $RC)"
			continue
		fi
		# shellcheck disable=SC2086
		run_long "diff-$n.pcl" 60 "$PCL" diff $args "$TMP/inl-perf.data" "$TMP/inl-pcl.data"
		if [ "$RC" -ne 0 ]; then
			not_ok "srcline-diff-$n" "pcl diff $args: exit $RC" "$(show "$TMP/diff-$n.pcl.err")"
			continue
		fi
		grep -v '^$' "$TMP/diff-$n.perf.out" >"$TMP/diff-$n.perf.cmp"
		grep -v '^$' "$TMP/diff-$n.pcl.out" >"$TMP/diff-$n.pcl.cmp"
		plt_slots "$TMP/diff-$n.perf.cmp" "$TMP/diff-$n.pcl.cmp"
		# a PLT slot's row sits among its equals by its name, which differs:
		# such rows are compared as a set, after the others in order
		for w in perf pcl; do
			{ grep -v '\[plt slot\]' "$TMP/diff-$n.$w.cmp"
			  grep '\[plt slot\]' "$TMP/diff-$n.$w.cmp" | sort; } >"$TMP/diff-$n.$w.cmp2"
			mv "$TMP/diff-$n.$w.cmp2" "$TMP/diff-$n.$w.cmp"
		done
		diff_or_ok "srcline-diff-$n" "$TMP/diff-$n.perf.cmp" "$TMP/diff-$n.pcl.cmp" perf pcl
	done
fi

# The JSON report carries the srcline and srcfile keys' strings: the same
# rows, with the same overheads, as perf's --sort srcline,srcfile (whose
# srcfile column perf may cut to its width: it must then begin pcl's).
for id in "${cases[@]}"; do
	F=$TMP/$id.data
	run_long "j-$id.perf" 60 perf report --stdio --no-children -q -g none \
		--sort srcline,srcfile -i "$F"
	run_long "j-$id.pcl" 60 "$PCL" report --no-children --sort srcline,srcfile --format json \
		-o "$TMP/j-$id.json" -i "$F"
	if [ "$RC" -ne 0 ]; then
		not_ok "srcline-json-$id" "pcl report --format json: exit $RC" "$(show "$TMP/j-$id.pcl.err")"
		continue
	fi
	awk '$1 ~ /%$/ { sub(/%$/, "", $1); printf "%s|%s|%s\n", $1, $2, $3 }' "$TMP/j-$id.perf.out" \
		>"$TMP/j-$id.perf.rows"
	if [ ! -s "$TMP/j-$id.perf.rows" ]; then
		not_ok "srcline-json-$id" "oracle: perf report printed no rows" "$(show "$TMP/j-$id.perf.err")"
		continue
	fi
	python3 - "$TMP/j-$id.json" "$TMP/j-$id.perf.rows" >"$TMP/j-$id.cmp" <<'PY'
import json, re, sys
# a PLT slot's srcline: SLOT+OFF, the slot named either way (see report-lib.sh)
plt = lambda s: re.sub(r"^(_init|[^ ]*@plt)(\+(0x)?[0-9a-f]+)?$", "[plt slot]", s)
doc = json.load(open(sys.argv[1]))
pcl = sorted((round(e["overhead"], 2), plt(e["srcline"]), e["srcfile"])
             for ev in doc["events"] for e in ev["entries"])
perf = []
for line in open(sys.argv[2]):
    pct, sl, sf = line.rstrip("\n").split("|")
    perf.append((float(pct), plt(sl), sf))
perf.sort()
bad = 0
if len(pcl) != len(perf):
    print("perf has %d rows, pcl's JSON %d" % (len(perf), len(pcl)))
    bad = 1
for a, b in zip(perf, pcl):
    if abs(a[0] - b[0]) > 0.011 or a[1] != b[1] or not b[2].startswith(a[2]):
        print("perf %s | pcl %s" % (a, b))
        bad = 1
sys.exit(bad)
PY
	if [ $? -eq 0 ]; then
		ok "srcline-json-$id"
	else
		not_ok "srcline-json-$id" "pcl's JSON rows differ from perf report --sort srcline,srcfile:" \
			"$(show "$TMP/j-$id.cmp" 20)"
	fi
done
exit 0
