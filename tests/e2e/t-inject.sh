#!/usr/bin/env bash
# pcl inject against perf inject 6.1 on the same inputs: file and stream in,
# file and stream out, with and without -b, --buildid-all, and perf record -z
# files written out expanded. perf report and perf script must read every
# output of pcl inject and say what they say of perf inject's; the inject
# parts of perf's tests/shell/pipe_test.sh must pass with pcl as perf.
. "$(dirname "$0")/lib.sh"

have_perf || { skip inject "no perf to compare with"; exit 0; }
export HOME="$TMP/home" # perf record fills ~/.debug: not the user's
mkdir -p "$HOME"
unset PERF_BUILDID_DIR
src="$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c"
rid() { od -An -N20 -tx1 /dev/urandom | tr -d ' \n'; }
bin="$TMP/hot"
if ! cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id=0x"$(rid)" -o "$bin" "$src" 2>"$TMP/cc.err"; then
	not_ok inject-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi
id=$(readelf -n "$bin" | awk '/Build ID/ { print $3 }')

perf record -q -e task-clock -g -o "$TMP/perf.data" -- "$bin" 100 >/dev/null 2>&1
perf record -q -e task-clock -g -o - -- "$bin" 100 2>/dev/null >"$TMP/perf.pipe"
"$PCL" record -q -N --no-fp-leaf -g -o "$TMP/pcl.data" -- "$bin" 100 >/dev/null 2>&1
"$PCL" record -q -N --no-fp-leaf -g -o - -- "$bin" 100 2>/dev/null >"$TMP/pcl.pipe"

# inject BY IN OUT ARGS...: run pcl or perf inject, reading IN from stdin
# when it is a stream (perf inject cannot take a saved stream as -i FILE).
inject() {
	local by=$1 in=$2 out=$3
	shift 3
	local cmd=perf
	[ "$by" = pcl ] && cmd=$PCL
	case $in in
	*.pipe) $cmd inject "$@" -o "$out" <"$in" ;;
	*) $cmd inject "$@" -i "$in" -o "$out" ;;
	esac
}
# perf's readings of one output: script, flat report, the build ids (sorted)
readings() { # FILE TAG
	perf script -i "$1" >"$TMP/$2.script" 2>"$TMP/$2.script.err" </dev/null
	perf report -i "$1" --stdio --no-children -g none --sort comm,dso,sym 2>"$TMP/$2.report.err" </dev/null |
		grep -v '^#' | grep -v '^$' >"$TMP/$2.report"
	perf buildid-list -i "$1" 2>/dev/null </dev/null | sort >"$TMP/$2.bids"
}
for in in perf.data perf.pipe pcl.data pcl.pipe; do
	for out in file pipe; do
		for b in "" -b; do
			name=inject-${in/./-}-to-$out${b:+-b}
			ext=data
			[ $out = pipe ] && ext=pipe
			inject perf "$TMP/$in" "$TMP/o-perf.$ext" $b 2>/dev/null
			inject pcl "$TMP/$in" "$TMP/o-pcl.$ext" $b 2>"$TMP/inj.err"
			rc=$?
			if [ $rc -ne 0 ] || crashed "$TMP/inj.err" $rc; then
				not_ok "$name" "pcl inject $b: exit $rc" "$(show "$TMP/inj.err")"
				continue
			fi
			readings "$TMP/o-perf.$ext" p
			readings "$TMP/o-pcl.$ext" c
			if [ ! -s "$TMP/p.script" ] || ! grep -q hot_leaf "$TMP/p.report"; then
				not_ok "$name" "oracle: perf read nothing of perf inject's output" "$(show "$TMP/p.script.err")"
			elif complaints "$TMP/c.script.err" >/dev/null || complaints "$TMP/c.report.err" >/dev/null; then
				not_ok "$name" "perf complains reading pcl inject's output" "$(show "$TMP/c.script.err")" "$(show "$TMP/c.report.err")"
			elif ! cmp -s "$TMP/p.script" "$TMP/c.script"; then
				diff_or_ok "$name" "$TMP/p.script" "$TMP/c.script" "perf script on perf inject" "perf script on pcl inject"
			else
				diff_or_ok "$name" "$TMP/p.report" "$TMP/c.report" "perf report on perf inject" "perf report on pcl inject"
			fi
			# -b: the workload's build id, from the file on disk, is in the output
			if [ -n "$b" ]; then
				if grep -q "^$id $bin\$" "$TMP/c.bids"; then
					ok "$name-bids"
				else
					not_ok "$name-bids" "want '$id $bin' in perf buildid-list of pcl inject -b's output" "$(show "$TMP/c.bids")"
				fi
			fi
		done
	done
done
# Without -b a file's build-id table goes along (perf inject drops it: a
# deliberate difference); pcl's stream carries its ids as records, kept too.
inject pcl "$TMP/pcl.pipe" "$TMP/keep.data"
if perf buildid-list -i "$TMP/keep.data" 2>/dev/null | grep -q "^$id $bin\$"; then
	ok inject-keeps-build-ids
else
	not_ok inject-keeps-build-ids "want the stream's HEADER_BUILD_ID records in the output's table" "$(perf buildid-list -i "$TMP/keep.data" 2>&1 | head)"
fi

# --buildid-all: every mapped file, samples or not (libc is mapped, seldom hit)
inject pcl "$TMP/perf.pipe" "$TMP/all.data" --buildid-all
perf buildid-list -i "$TMP/all.data" >"$TMP/all.bids" 2>/dev/null
if grep -q "^$id $bin\$" "$TMP/all.bids" && grep -q ' /usr/lib/.*libc.so.6$' "$TMP/all.bids"; then
	ok inject-buildid-all
else
	not_ok inject-buildid-all "want the workload and libc in the table" "$(show "$TMP/all.bids")"
fi

# perf record -z: written out expanded, read by perf as the compressed one
if perf record -q -o "$TMP/comp.data" -g -z -F 5000 -- dd count=2000 if=/dev/urandom of=/dev/null 2>/dev/null &&
	perf report -i "$TMP/comp.data" --stats 2>/dev/null | grep -q 'COMPRESSED events'; then
	"$PCL" inject -i "$TMP/comp.data" -o "$TMP/decomp.data" 2>"$TMP/dec.err"
	perf inject -i "$TMP/comp.data" -o "$TMP/pdecomp.data" 2>/dev/null
	perf report -i "$TMP/comp.data" --stdio -F comm,dso,sym 2>/dev/null | head -n -3 >"$TMP/comp.out"
	perf report -i "$TMP/decomp.data" --stdio -F comm,dso,sym 2>"$TMP/decomp.err" | head -n -3 >"$TMP/decomp.out"
	if grep -qE '^ +dd ' "$TMP/comp.out"; then
		diff_or_ok inject-decompress-report "$TMP/comp.out" "$TMP/decomp.out" "perf report (compressed)" "perf report (pcl inject)"
	else
		not_ok inject-decompress-report "oracle: perf report of the -z file is empty" "$(show "$TMP/comp.out")"
	fi
	perf script -i "$TMP/pdecomp.data" >"$TMP/pdec.script" 2>/dev/null
	perf script -i "$TMP/decomp.data" >"$TMP/dec.script" 2>/dev/null
	diff_or_ok inject-decompress-script "$TMP/pdec.script" "$TMP/dec.script" "perf script (perf inject)" "perf script (pcl inject)"
	ncomp=$(perf report -i "$TMP/decomp.data" --stats 2>/dev/null | awk '/COMPRESSED events/ { print $NF }')
	if [ "${ncomp:-0}" -eq 0 ] && ! perf report -i "$TMP/decomp.data" --header-only 2>/dev/null | grep -q '^# compressed'; then
		ok inject-decompress-plain
	else
		not_ok inject-decompress-plain "want no COMPRESSED record nor feature left" "COMPRESSED events: $ncomp"
	fi
else
	skip inject-decompress "perf record -z does not work here"
fi

# several events (found by their ids) and a tracepoint (its format data
# carried): perf script reads the copy as it reads the input (perf inject 6.1
# itself fails on a saved tracepoint stream: 'tracing data size mismatch')
perf record -q -e task-clock,page-faults -o "$TMP/multi.data" -- "$bin" 50 >/dev/null 2>&1
if perf record -q -e sched:sched_switch -a -o - -- sleep 0.2 2>/dev/null >"$TMP/tp.pipe" && [ -s "$TMP/tp.pipe" ]; then
	tp=tp.pipe
else
	tp=
fi
for in in multi.data $tp; do
	name=inject-${in/./-}
	for out in data pipe; do
		inject pcl "$TMP/$in" "$TMP/m-pcl.$out" -b 2>"$TMP/inj.err"
		perf script -i "$TMP/m-pcl.$out" >"$TMP/m-pcl.script" 2>"$TMP/m.err" </dev/null
		perf script -i "$TMP/$in" >"$TMP/m-in.script" 2>/dev/null </dev/null
		if [ -s "$TMP/m-in.script" ] && ! complaints "$TMP/m.err" >/dev/null; then
			diff_or_ok "$name-to-$out" "$TMP/m-in.script" "$TMP/m-pcl.script" "perf script (input)" "perf script (pcl inject -b)"
		else
			not_ok "$name-to-$out" "perf script: nothing from the input, or complaints on pcl's copy" "$(show "$TMP/m.err")"
		fi
	done
done
[ -z "$tp" ] && skip inject-tracepoint "cannot record sched:sched_switch here"

# bad input: one line and a non-zero exit, no output file left behind
echo "not a perf.data file at all, just some text" >"$TMP/junk"
"$PCL" inject -i "$TMP/junk" -o "$TMP/junk.out" 2>"$TMP/junk.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/junk.err")" -eq 1 ] && ! crashed "$TMP/junk.err" $rc && [ ! -e "$TMP/junk.out" ]; then
	ok inject-bad-input
else
	not_ok inject-bad-input "want one error line, a non-zero exit and no output" "exit $rc" "$(show "$TMP/junk.err")"
fi

# the inject parts of perf's pipe_test.sh (its report --task part is pcl report's)
sed '/--task/,/^fi$/d' /usr/lib/perf-core/tests/shell/pipe_test.sh >"$TMP/pipe_inject.sh"
mkdir -p "$TMP/shim"
ln -sf "$PCL" "$TMP/shim/perf"
(cd "$TMP" && PATH="$TMP/shim:$PATH" bash -x "$TMP/pipe_inject.sh") >"$TMP/pt.out" 2>&1
rc=$?
n=$(grep -c '\[\.\] noploop' "$TMP/pt.out")
if [ $rc -eq 0 ] && [ "$n" -eq 3 ] && [ "$(grep -c '^+ perf inject' "$TMP/pt.out")" -eq 3 ]; then
	ok inject-perf-pipe-test
else
	not_ok inject-perf-pipe-test "pipe_test.sh's inject parts with pcl as perf: exit $rc, $n of 3 noploop lines" "$(tail -15 "$TMP/pt.out")"
fi

# perf's record+zstd_comp_decomp.sh with pcl as perf: pcl record -z, then
# pcl inject expands it and pcl report says the same of both
(cd "$TMP" && PATH="$TMP/shim:$PATH" bash /usr/lib/perf-core/tests/shell/record+zstd_comp_decomp.sh) >"$TMP/z.out" 2>&1
rc=$?
if [ $rc -eq 2 ]; then
	skip inject-perf-zstd-test "pcl record has no -z here"
elif [ $rc -eq 0 ] && grep -q '# compressed : Zstd' "$TMP/z.out" && grep -q 'COMPRESSED events' "$TMP/z.out"; then
	ok inject-perf-zstd-test
else
	not_ok inject-perf-zstd-test "record+zstd_comp_decomp.sh with pcl as perf: exit $rc" "$(tail -15 "$TMP/z.out")"
fi
