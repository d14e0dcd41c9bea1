#!/usr/bin/env bash
# The event-spec fuzz target on its seed corpus (fuzz/corpus/event-parse):
#   fuzz-event-parse-corpus   every seed once, under ASan+UBSan
#   fuzz-event-parse-runs     a short fixed libFuzzer run (2000 inputs, seed 1)
# Both need clang and the libFuzzer runtime (Debian: libclang-rt-14-dev).
# Without them the corpus is still replayed through fuzz/replay.c built with
# $CC and ASan+UBSan, and the libFuzzer run is skipped. The committed corpus
# is never written: libFuzzer works on a copy under $TMP.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

corpus=fuzz/corpus/event-parse
fuzzer=fuzz/out/fuzz-event-parse

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

if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
	not_ok fuzz-event-parse-corpus "no seed corpus in $corpus"
	exit 0
fi

if ! have_libfuzzer; then
	reason="$FUZZ_CC with libFuzzer not available (apt-get install clang libclang-rt-14-dev)"
	if make -s -f fuzz/Makefile replay >"$TMP/replay.log" 2>&1; then
		ok fuzz-event-parse-corpus
	else
		not_ok fuzz-event-parse-corpus "replay of $corpus without libFuzzer failed" \
			"$(tail -20 "$TMP/replay.log")"
	fi
	skip fuzz-event-parse-runs "$reason"
	exit 0
fi

if ! make -s -f fuzz/Makefile >"$TMP/build.log" 2>&1; then
	not_ok fuzz-event-parse-build "make -f fuzz/Makefile failed" "$(tail -20 "$TMP/build.log")"
	skip fuzz-event-parse-corpus "fuzz target did not build"
	skip fuzz-event-parse-runs "fuzz target did not build"
	exit 0
fi

# Each seed once: libFuzzer runs the named files and exits, no mutation.
run_logged fuzz-event-parse-corpus "$TMP/corpus.log" \
	"$fuzzer" -timeout=10 "$corpus"/*

# A short, reproducible mutation run over a scratch copy of the corpus.
cp -r "$corpus" "$TMP/corpus"
run_logged fuzz-event-parse-runs "$TMP/runs.log" \
	"$fuzzer" -runs=2000 -seed=1 -max_len=4096 -timeout=10 -max_total_time=60 \
	-artifact_prefix="$TMP/" "$TMP/corpus"
# A crash input is the one thing worth keeping from the temp dir.
for a in "$TMP"/crash-* "$TMP"/leak-* "$TMP"/timeout-*; do
	[ -f "$a" ] || continue
	mkdir -p fuzz/out
	cp "$a" fuzz/out/
	echo "    kept $(basename "$a") in fuzz/out/ (input: $(head -c 200 "$a" | od -An -c | tr -s ' ' | head -3))"
done
