#!/usr/bin/env bash
# Source-line lookups: pcl's libdw module (lib/symbol/srcline.c) against
# addr2line, what perf 6.1 runs for srcline (bench/srcline.c says how).
# Printed, not asserted; not part of `make check`.
#
#   bench/srcline.sh [BUILD]          BUILD defaults to build/
#   DISTINCT=50000 REPEAT=20 FILES="/path/a /path/b" bench/srcline.sh
#
# By default it measures BUILD/pcl (-O2 -g) and libc (when its debug file
# is installed: Debian's libc6-dbg).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
DISTINCT=${DISTINCT:-20000}
REPEAT=${REPEAT:-10}
CC=${CC:-cc}
FILES=${FILES:-"$BUILD/pcl /usr/lib/x86_64-linux-gnu/libc.so.6"}

if [ ! -f "$BUILD/libpcl.a" ]; then
	echo "bench: '$BUILD/libpcl.a' not found; run 'make' first" >&2
	exit 1
fi
command -v addr2line >/dev/null || { echo "bench: addr2line not found (binutils)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
libs=$(sed -n 's/^Libs.private: *//p' "$BUILD/libpcl.pc" 2>/dev/null)
[ -n "$libs" ] || libs="-lcapstone -ldw -lelf -lzstd -liberty -lprotobuf-c -lz -ltraceevent -lm -lpthread"
# shellcheck disable=SC2086 # $libs is a list of flags
"$CC" -std=gnu11 -O2 -g -D_GNU_SOURCE -Iinclude -Ilib -o "$TMP/srcline" bench/srcline.c \
	"$BUILD/libpcl.a" $libs || exit 1
for f in $FILES; do
	[ -r "$f" ] || { echo "bench: skip $f (not readable)"; continue; }
	"$TMP/srcline" "$f" "$DISTINCT" "$REPEAT"
done
