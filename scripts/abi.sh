#!/usr/bin/env bash
# The ABI of libpcl's stable API (version node PCL_0.1 of lib/libpcl.map,
# declared in the headers of abi/stable-headers), with libabigail:
#
#   scripts/abi.sh dump LIBPCL_SO OUT   write its ABI (abixml) to OUT
#   scripts/abi.sh check LIBPCL_SO      compare with the baseline abi/libpcl.abi;
#                                       exit 0 when equal, else print abidiff's
#                                       report and exit 1 (2: abidiff failed)
#
# `make abi-update` writes the baseline; run it after a deliberate change of the
# stable API (a new function, a struct that grows) and commit abi/libpcl.abi.
# The functions of PCL_UNSTABLE_0.1 are dropped on both sides: no promise.
# The baseline holds no build path (no corpus or compilation directory, no
# source locations), so any checkout and any BUILD dir compare equal.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASELINE=$ROOT/abi/libpcl.abi
MAP=$ROOT/lib/libpcl.map

# the library's path, absolute: the script works from $ROOT
so=${2:-}
[ -z "$so" ] || so=$(realpath "$so")
out=${3:-}
[ -z "$out" ] || out=$(realpath -m "$out")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Keep only PCL_0.1's names, the map's and (for check) the baseline's, so a
# function gone from both the map and the library is still missed: drop
# every other function and variable.
{
	awk '/^PCL_0\.1 /,/local:/' "$MAP" | sed -n 's/^[[:space:]]*\(pcl_[A-Za-z0-9_]*\);.*/\1/p'
	if [ "${1:-}" = check ] && [ -f "$BASELINE" ]; then
		sed -n "s/.*<elf-symbol name='\([A-Za-z0-9_]*\)'.*/\1/p" "$BASELINE"
	fi
} | sort -u >"$tmp/names"
names=$(paste -sd'|' "$tmp/names")
if [ -z "$names" ]; then
	echo "abi.sh: no symbol in the PCL_0.1 node of $MAP" >&2
	exit 2
fi
cat >"$tmp/stable.suppr" <<SUPPR
[suppress_function]
  symbol_name_not_regexp = ^($names)\$
  drop = true
[suppress_variable]
  symbol_name_not_regexp = ^($names)\$
  drop = true
SUPPR

# Header paths as the DWARF has them, relative to the compilation directory
# (the top of the tree): an absolute path would match no type, and every
# struct would then be dropped as private.
cd "$ROOT"
headers=()
while read -r h; do
	[ -n "$h" ] || continue
	headers+=(--hf "include/pcl/$h")
done <"$ROOT/abi/stable-headers"

# abidw of the library's stable part into $1 (both sides of a check are
# written the same way: comparing abixml with abixml, so no reader differs)
dump() {
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs --drop-private-types \
		--suppressions "$tmp/stable.suppr" "${headers[@]}" --out-file "$1" "$so"
}

case "${1:-}" in
dump)
	[ $# -eq 3 ] || { echo "usage: $0 dump LIBPCL_SO OUT" >&2; exit 2; }
	dump "$out"
	;;
check)
	[ $# -eq 2 ] || { echo "usage: $0 check LIBPCL_SO" >&2; exit 2; }
	if [ ! -f "$BASELINE" ]; then
		echo "no baseline $BASELINE: make abi-update" >&2
		exit 2
	fi
	dump "$tmp/now.abi" || exit 2
	set +e
	abidiff --no-show-locs "$BASELINE" "$tmp/now.abi" >"$tmp/report" 2>&1
	rc=$?
	set -e
	# abidiff's status is a bit mask: 1 error, 2 usage, 4 ABI change, 8 incompatible.
	if [ $rc -eq 0 ]; then
		exit 0
	elif [ $((rc & 3)) -ne 0 ]; then
		cat "$tmp/report"
		exit 2
	fi
	cat "$tmp/report"
	exit 1
	;;
*)
	echo "usage: $0 dump LIBPCL_SO OUT | check LIBPCL_SO" >&2
	exit 2
	;;
esac
