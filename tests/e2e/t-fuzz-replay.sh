#!/usr/bin/env bash
# Each fuzz target on its seed corpus (fuzz/corpus/TARGET):
#   fuzz-TARGET-corpus   every seed once, under ASan+UBSan
#   fuzz-TARGET-runs     a short fixed libFuzzer run (2000 inputs, seed 1)
# for TARGET in event-parse (the event-spec parser), record-decode (the
# PERF_RECORD_* decoder), data-reader (perf.data files and streams),
# elf-symbols (ELF, kallsyms and perf-map symbol tables) and report (perf.data
# through machine, resolver, hists and the report printer), header and
# tracing (the TRACING_DATA section, pcl's and libtraceevent's parse and
# print of it), trace-args (pcl trace's mappings and argument decoding). All need clang and the libFuzzer runtime (Debian:
# libclang-rt-14-dev). Without them each corpus is still replayed through
# fuzz/replay.c built with $CC and ASan+UBSan, and the libFuzzer runs are
# skipped. The committed corpora are never written: libFuzzer works on
# copies under $TMP.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

targets=(event-parse record-decode data-reader elf-symbols report header tracing unwind trace-args probe-spec)

# FUZZ_CC as in fuzz/Makefile; FUZZ_CC=none tests the fallback.
FUZZ_CC=${FUZZ_CC:-clang}
export FUZZ_CC

have_libfuzzer() {
	command -v "$FUZZ_CC" >/dev/null 2>&1 || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>"$TMP/probe.c"
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$TMP/probe" "$TMP/probe.c" >/dev/null 2>&1
}

# The lines of a sanitizer or libFuzzer report worth reading, else the log's tail.
report() { # log
	local r
	r=$(grep -E -A14 'ERROR:|runtime error|deadly signal' "$1" | grep -v -E 'in (fuzzer::|main |_start|__libc_start)' | head -20)
	[ -n "$r" ] || r=$(tail -15 "$1")
	printf '%s\n' "$r" "$(grep -E 'Test unit written' "$1")"
}

# Run "$@" with a time limit; on failure print not ok with the report.
run_logged() { # name log cmd...
	local name=$1 log=$2 rc=0
	shift 2
	timeout 120 "$@" >"$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name"
	else
		not_ok "$name" "command: $(echo "$*" | cut -c1-200)" \
			"exit $rc$([ $rc -eq 124 ] && echo ' (timed out)')" "$(report "$log")"
	fi
}

# The targets whose seed corpus is there; a missing one is a failure.
present=()
for t in "${targets[@]}"; do
	if [ ! -d "fuzz/corpus/$t" ] || [ -z "$(ls -A "fuzz/corpus/$t" 2>/dev/null)" ]; then
		not_ok "fuzz-$t-corpus" "no seed corpus in fuzz/corpus/$t"
	else
		present+=("$t")
	fi
done
[ ${#present[@]} -gt 0 ] || exit 0

if ! have_libfuzzer; then
	reason="$FUZZ_CC with libFuzzer not available (apt-get install clang libclang-rt-14-dev)"
	for t in "${present[@]}"; do
		replayer="$(pwd -P)/fuzz/out/replay-$t" # the path fuzz/Makefile names it by
		if make -s -f fuzz/Makefile "$replayer" >"$TMP/replay-$t.log" 2>&1 &&
			"$replayer" "fuzz/corpus/$t" >>"$TMP/replay-$t.log" 2>&1; then
			ok "fuzz-$t-corpus"
		else
			not_ok "fuzz-$t-corpus" "replay of fuzz/corpus/$t without libFuzzer failed" \
				"$(tail -20 "$TMP/replay-$t.log")"
		fi
		skip "fuzz-$t-runs" "$reason"
	done
	exit 0
fi

if ! make -s -f fuzz/Makefile >"$TMP/build.log" 2>&1; then
	for t in "${present[@]}"; do
		not_ok "fuzz-$t-build" "make -f fuzz/Makefile failed" "$(tail -20 "$TMP/build.log")"
		skip "fuzz-$t-corpus" "fuzz target did not build"
		skip "fuzz-$t-runs" "fuzz target did not build"
	done
	exit 0
fi

for t in "${present[@]}"; do
	corpus=fuzz/corpus/$t
	fuzzer=fuzz/out/fuzz-$t

	# Each seed once: libFuzzer runs the named files and exits, no mutation.
	run_logged "fuzz-$t-corpus" "$TMP/corpus-$t.log" \
		"$fuzzer" -timeout=10 "$corpus"/*

	# A short, reproducible mutation run over a scratch copy of the corpus.
	mkdir -p "$TMP/$t"
	cp -r "$corpus" "$TMP/$t/corpus"
	run_logged "fuzz-$t-runs" "$TMP/runs-$t.log" \
		"$fuzzer" -runs=2000 -seed=1 -max_len=4096 -timeout=10 -max_total_time=60 \
		-artifact_prefix="$TMP/$t/" "$TMP/$t/corpus"
	# A crash input is the one thing worth keeping from the temp dir.
	for a in "$TMP/$t"/crash-* "$TMP/$t"/leak-* "$TMP/$t"/timeout-*; do
		[ -f "$a" ] || continue
		mkdir -p fuzz/out
		cp "$a" "fuzz/out/$t-$(basename "$a")"
		echo "    kept $t-$(basename "$a") in fuzz/out/ (input: $(head -c 200 "$a" | od -An -c | tr -s ' ' | head -3))"
	done
done
