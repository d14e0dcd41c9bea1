#!/usr/bin/env bash
# Run every test against one or more builds (default: build) and print the
# closing line "N passed, N failed, N skipped".
#
#   tests/run.sh [BUILD...]        e.g. tests/run.sh build build/san
#
# Unit tests are the cmocka binaries BUILD/tests/test-*; their TAP output is
# counted test by test. End-to-end tests are tests/e2e/t-*.sh, run with
# PCL=BUILD/pcl and BUILD set; each prints lines "ok NAME", "not ok NAME",
# or "skip NAME: reason" through tests/e2e/lib.sh.
set -u
cd "$(dirname "$0")/.."
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=(build)
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

for b in "${builds[@]}"; do
	echo "== unit tests ($b)"
	for t in "$b"/tests/test-*; do
		[ -x "$t" ] || continue
		out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
		rc=$?
		echo "$out" | grep -E '^(not )?ok ' | sed 's/^/  /'
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
