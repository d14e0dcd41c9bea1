#!/usr/bin/env bash
# Run every test against one or more builds (default: build) and print the
# closing line "N passed, N failed, N skipped".
#
#   tests/run.sh [[--unit-only] BUILD...]
#                                  e.g. tests/run.sh build build/san --unit-only build/tsan
#
# --unit-only: for the build that follows, only the unit tests it has (the
# ThreadSanitizer build holds just the threaded ones). A sanitizer report
# fails the test: TSan stops at the first report with exit status 66.
#
# Unit tests are the cmocka binaries BUILD/tests/test-*; their TAP output is
# counted test by test. End-to-end tests are tests/e2e/t-*.sh, run with
# PCL=BUILD/pcl and BUILD set; each prints lines "ok NAME", "not ok NAME",
# or "skip NAME: reason" through tests/e2e/lib.sh.
set -u
cd "$(dirname "$0")/.."
builds=() unit_only=()
while [ $# -gt 0 ]; do
	if [ "$1" = --unit-only ] && [ $# -gt 1 ]; then
		builds+=("$2") unit_only+=(1)
		shift 2
	else
		builds+=("$1") unit_only+=(0)
		shift
	fi
done
[ ${#builds[@]} -gt 0 ] || builds=(build) unit_only=(0)
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
# A user's debuginfod servers would make every stripped test binary a network
# look-up (and a warning on stderr): the tests that want one start their own.
unset DEBUGINFOD_URLS
pass=0 fail=0 skip=0
failed=()

count() { # $1 = label; stdin = result lines
	local label=$1 line
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass=$((pass + 1)) ;;
		"not ok "*) fail=$((fail + 1)); failed+=("$label: ${line#not ok }") ;;
		"skip "*) skip=$((skip + 1)); echo "  SKIP $label: ${line#skip }" ;;
		esac
	done
}

for i in "${!builds[@]}"; do
	b=${builds[$i]}
	echo "== unit tests ($b)"
	for t in "$b"/tests/test-*; do
		[ -x "$t" ] || continue
		out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
		rc=$?
		# TSan cannot place its shadow on kernels with high mmap ASLR
		# entropy: run it again without address randomisation.
		if grep -q 'ThreadSanitizer: unexpected memory mapping' <<<"$out"; then
			out=$(CMOCKA_MESSAGE_OUTPUT=TAP setarch "$(uname -m)" -R "$t" 2>&1)
			rc=$?
		fi
		# cmocka writes a skip as "not ok N # SKIP name": shown as
		# "skip N name", so that "not ok" in the log is always a failure.
		echo "$out" | grep -E '^(not )?ok ' |
			sed -E 's/^(not )?ok ([0-9]+) # SKIP */skip \2 /; s/^/  /'
		# TAP "ok 1 - name" / "not ok 2 - name" / "ok 3 # SKIP"
		# a skip's reason is the message the test printed just before it
		res=$(echo "$out" | awk '
			/^(not )?ok [0-9]+ # SKIP/ { sub(/^(not )?ok [0-9]+ # SKIP */, ""); print "skip " $0 ": " why; next }
			/^(not ok|ok) [0-9]+ - / { sub(/ [0-9]+ - /, " "); print; next }
			/^[^#\[]/ && NF { why = $0 }')
		if [ -z "$res" ]; then
			res="not ok $(basename "$t") (no TAP output, exit $rc)"
			echo "$out" | tail -20
		fi
		count "$(basename "$t")[$b]" <<<"$res"
		if [ $rc -ne 0 ] && ! grep -q '^not ok' <<<"$res"; then
			count "$(basename "$t")[$b]" <<<"not ok exit status $rc"
			echo "$out" | tail -20
		fi
	done
	[ "${unit_only[$i]}" = 1 ] && continue
	echo "== end-to-end tests ($b)"
	for t in tests/e2e/t-*.sh; do
		[ -f "$t" ] || continue
		out=$(PCL="$PWD/$b/pcl" BUILD="$PWD/$b" timeout 600 bash "$t" 2>&1)
		rc=$?
		echo "$out" | sed 's/^/  /'
		count "$(basename "$t")[$b]" <<<"$out"
		if [ $rc -ne 0 ] && ! grep -q '^not ok' <<<"$out"; then
			count "$(basename "$t")[$b]" <<<"not ok script exited $rc"
		fi
	done
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "Failed:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
