#!/usr/bin/env bash
# pcl record -g puts back the caller that frame-pointer chains lose when a
# sample lands in a function without a frame (docs/fpleaf.md): gcc builds
# leaves without one even with -fno-omit-frame-pointer, so the kernel's
# chain for the demo's sum_primes reads __libc_start_call_main ->
# sum_primes, without main. pcl record -g also copies 64 bytes of user
# stack per sample, and pcl report/script insert the caller the CFI finds
# there:
#   - the demo (examples/demo-workload.c): main between sum_primes and
#     __libc_start_call_main, in pcl script and in pcl report -g caller;
#   - tests/workloads/hot built by gcc: middle between hot_leaf and outer;
#   - Linux perf reads the file exactly as a plain -g file: perf script and
#     perf report print the same for it as for the same file with the stack
#     copies cut out (fpleaf-strip.py), with nothing on stderr;
#   - that stripped file (what perf's own -g files look like) is read by
#     pcl as before: no main;
#   - a leaf with a 400-byte frame: pcl script says the copy was too small
#     and which --fp-leaf SIZE would do, and with it the caller is back;
#   - so does an event's own call-graph=fp or max-stack=N term;
#   - --no-fp-leaf records no copy, --fp-leaf=SIZE another size, a bad
#     size is a usage error.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip fpleaf "perf is not installed (the oracle for the file's compatibility)"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip fpleaf "python3 is not installed (tests/e2e/fpleaf-strip.py)"
	exit 0
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
STRIP=$src/tests/e2e/fpleaf-strip.py
# The demo as the Makefile builds it (gcc, -O2, frame pointers), without libpcl.
demo=$TMP/demo-workload
if ! cc -std=gnu11 -O2 -g -fno-omit-frame-pointer -o "$demo" "$src/examples/demo-workload.c" 2>"$TMP/cc.err"; then
	not_ok fpleaf-build "cannot build examples/demo-workload.c:" "$(show "$TMP/cc.err")"
	exit 0
fi
hot=$(workload hot) || { not_ok fpleaf-build "cannot build tests/workloads/hot.c"; exit 0; }

# rec TAG ARGS...: pcl record -q -e cpu-clock ARGS into $TMP/TAG.data; false after a not ok.
rec() {
	local tag=$1
	shift
	run_long "rec-$tag" 60 "$PCL" record -q -e cpu-clock -o "$TMP/$tag.data" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/rec-$tag.err" "$RC" || [ ! -s "$TMP/$tag.data" ]; then
		not_ok "fpleaf-record-$tag" "pcl record -e cpu-clock $*: exit $RC (want 0)" "$(show "$TMP/rec-$tag.err")"
		return 1
	fi
}
# attr FILE: the event's attr as perf evlist -v prints it.
attr() { perf evlist -v -i "$1" 2>/dev/null | head -1; }
# after LEAF < script output: for each sample whose first frame is LEAF,
# the symbols of its next two frames ("main __libc_start_call_main"; "-"
# where the chain ends), one a line.
after() {
	awk -v leaf="$1" '
		function flush() { if (want && n >= 2) print two, (three == "" ? "-" : three); want = 0 }
		/^[ \t]+[0-9a-f]+ / { n++; s = $2; sub(/\+0x[0-9a-f]+$/, "", s)
			if (n == 1) { want = (s == leaf); two = three = "" }
			else if (n == 2) two = s
			else if (n == 3) three = s
			next }
		{ flush(); n = 0 }
		END { flush() }'
}
# callers_ok NAME LEAF WANT OUT WHAT: ok if of the samples of pcl script
# output OUT (exit status $RC) whose first frame is LEAF, at least 50 and
# 90% go on to WANT ("caller grand-caller", "-" for a chain's end); WHAT
# says what ran.
callers_ok() {
	local name=$1 leaf=$2 want=$3 out=$4 what=$5 k n
	after "$leaf" <"$out" >"$out.after"
	read -r k n < <(share "$out.after" "$want")
	if [ "$RC" -eq 0 ] && mostly "$k" "$n"; then
		ok "$name"
	else
		not_ok "$name" "pcl script on $what (exit $RC): $k of $n samples in $leaf go on to '$want'" \
			"(want >= 50 samples, >= 90%); what follows $leaf:" "$(sort "$out.after" | uniq -c | sort -rn | head -5)"
	fi
}
# share FILE LINE: "K N": K of the N lines of FILE equal LINE.
share() { echo "$(grep -cxF "$2" "$1") $(wc -l <"$1")"; }
# mostly K N: N >= 50 samples and K >= 90% of them.
mostly() { [ "$2" -ge 50 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ]; }

# --- the demo ----------------------------------------------------------------------------
rec demo -g -- "$demo" || exit 0
a=$(attr "$TMP/demo.data")
if [[ "$a" == *"sample_type: IP|TID|TIME|CALLCHAIN|PERIOD|STACK_USER,"* && "$a" == *"sample_stack_user: 64"* &&
	"$a" != *REGS_USER* ]]; then
	ok fpleaf-attr
else
	not_ok fpleaf-attr "pcl record -g: want STACK_USER, sample_stack_user: 64 and no REGS_USER in:" "$a"
fi

run_long script 60 "$PCL" script -i "$TMP/demo.data"
callers_ok fpleaf-demo-script sum_primes "main __libc_start_call_main" "$TMP/script.out" "pcl record -g -- demo-workload"

# An event's own terms asking for frame-pointer chains (perf's
# 'EVENT/max-stack=N/' or 'call-graph=fp', as perf's shell test
# record+probe_libc_inet_pton.sh records its probe) get the repair too.
for term in call-graph=fp max-stack=8; do
	run_long "rec-term" 60 "$PCL" record -q -e "cpu-clock/$term/" -o "$TMP/term.data" -- "$demo"
	run_long script-term 60 "$PCL" script -i "$TMP/term.data"
	callers_ok "fpleaf-term-${term%%=*}" sum_primes "main __libc_start_call_main" "$TMP/script-term.out" \
		"pcl record -e 'cpu-clock/$term/' -- demo-workload"
done

# pcl report -g caller: the chain under sum_primes, outermost first.
run_long report 60 "$PCL" report -i "$TMP/demo.data" --stdio --no-children -g caller --symbols sum_primes -q
chain=$(awk '/---/ { on = 1; sub(/.*---/, "") } on && NF { gsub(/^[ |]+/, ""); print } on && !NF { exit }' \
	"$TMP/report.out" | tr '\n' ' ')
if [ "$RC" -eq 0 ] && [ "$chain" = "__libc_start_call_main main sum_primes " ]; then
	ok fpleaf-demo-report
else
	not_ok fpleaf-demo-report "pcl report --no-children -g caller --symbols sum_primes (exit $RC): chain '$chain'" \
		"(want '__libc_start_call_main main sum_primes'):" "$(show "$TMP/report.out")"
fi

# --- perf reads it as a plain -g file --------------------------------------------------------
if python3 "$STRIP" "$TMP/demo.data" "$TMP/plain.data" 2>"$TMP/strip.err"; then
	for w in script report children; do
		case $w in
		script) args=(script) ;;
		report) args=(report --stdio --no-children -g caller) ;;
		children) args=(report --stdio) ;;
		esac
		# (perf report ends with a random tip)
		perf "${args[@]}" -i "$TMP/demo.data" 2>"$TMP/p-$w.err" | grep -v '^# (Tip:' >"$TMP/p-$w.out"
		perf "${args[@]}" -i "$TMP/plain.data" 2>"$TMP/q-$w.err" | grep -v '^# (Tip:' >"$TMP/q-$w.out"
		if [ -s "$TMP/p-$w.out" ] && [ ! -s "$TMP/p-$w.err" ] && cmp -s "$TMP/p-$w.out" "$TMP/q-$w.out"; then
			ok "fpleaf-perf-$w"
		else
			mapfile -t d < <(diff -u --label "with the copies" --label "without" "$TMP/p-$w.out" "$TMP/q-$w.out" | head -20)
			not_ok "fpleaf-perf-$w" "perf ${args[*]} on pcl record -g's file and on it without the stack copies:" \
				"stderr: $(head -3 "$TMP/p-$w.err")" "${d[@]}"
		fi
	done
	run_long plain 60 "$PCL" script -i "$TMP/plain.data"
	callers_ok fpleaf-plain-unchanged sum_primes "__libc_start_call_main -" "$TMP/plain.out" \
		"the demo's file without the copies (perf's chain)"
else
	not_ok fpleaf-perf-script "fpleaf-strip.py failed:" "$(show "$TMP/strip.err")"
fi

# --- hot built by gcc: hot_leaf has no frame, middle was lost ---------------------------------
if rec hot -g -- "$hot" 300; then
	run_long hscript 60 "$PCL" script -i "$TMP/hot.data"
	callers_ok fpleaf-hot-script hot_leaf "middle outer" "$TMP/hscript.out" "pcl record -g -- hot 300 (gcc)"
fi

# --- a leaf with a big frame: the copy is too small, pcl says which size would do -------------
if ! bigleaf=$(workload bigleaf); then
	not_ok fpleaf-note "cannot build tests/workloads/bigleaf.c"
elif rec big -g -- "$bigleaf" 400; then
	run_long bscript 60 "$PCL" script -i "$TMP/big.data"
	size=$(sed -n 's/.*record with --fp-leaf \([0-9]*\) to put it back.*/\1/p' "$TMP/bscript.err")
	if [ -n "$size" ] && [ "$size" -gt 64 ] && rec big2 -g --fp-leaf "$size" -- "$bigleaf" 400; then
		run_long bscript2 60 "$PCL" script -i "$TMP/big2.data"
		grep -q 'fp-leaf' "$TMP/bscript2.err" && RC=1 # the note again: the size did not do
		callers_ok fpleaf-note big_leaf "caller main" "$TMP/bscript2.out" \
			"pcl record -g --fp-leaf $size -- bigleaf (the size the note named)"
	else
		not_ok fpleaf-note "pcl script on pcl record -g of a leaf with a 400-byte frame: want a note naming" \
			"--fp-leaf SIZE > 64; stderr:" "$(show "$TMP/bscript.err")" "pcl report --stats:" \
			"$("$PCL" report --stats -i "$TMP/big.data" 2>&1 | tail -7)"
	fi
fi

# --- the switches ------------------------------------------------------------------------------
if rec off -g --no-fp-leaf -- "$hot" 300; then
	a=$(attr "$TMP/off.data")
	if [[ "$a" != *STACK_USER* && "$a" != *sample_stack_user* ]]; then
		ok fpleaf-no-fp-leaf
	else
		not_ok fpleaf-no-fp-leaf "pcl record -g --no-fp-leaf: want no STACK_USER nor sample_stack_user in:" "$a"
	fi
	run_long oscript 60 "$PCL" script -i "$TMP/off.data"
	callers_ok fpleaf-no-fp-leaf-chain hot_leaf "outer main" "$TMP/oscript.out" \
		"pcl record -g --no-fp-leaf -- hot 300 (perf's chain, without middle)"
fi
if rec size -g --fp-leaf=20 -- "$hot" 50; then
	a=$(attr "$TMP/size.data")
	if [[ "$a" == *"sample_stack_user: 24"* ]]; then
		ok fpleaf-size
	else
		not_ok fpleaf-size "pcl record -g --fp-leaf=20: want sample_stack_user: 24 (rounded up to 8) in:" "$a"
	fi
fi
run bad "$PCL" record -g --fp-leaf=lots -o "$TMP/bad.data" -- true
if [ "$RC" -eq 2 ] && grep -q "fp-leaf\|leaf stack size" "$TMP/bad.err"; then
	ok fpleaf-bad-size
else
	not_ok fpleaf-bad-size "pcl record -g --fp-leaf=lots: exit $RC (want 2), stderr:" "$(show "$TMP/bad.err")"
fi
