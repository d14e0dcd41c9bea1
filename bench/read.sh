#!/usr/bin/env bash
# ns per counter read: libpcl against a bare read(2) and against PAPI, for
# one counter and for a group of four (bench/read.c says how). Printed, not
# asserted; not part of `make check`. `make bench` runs it on build/.
#
#   bench/read.sh [BUILD]             BUILD defaults to build/
#   N=3000000 RUNS=7 bench/read.sh    more reads per run, more runs
#
# Builds bench/read.c against BUILD/libpcl.a, with PAPI when papi.h and
# -lpapi work (Debian: libpapi-dev; a compile test decides), else without
# it, and runs it.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
N=${N:-1000000}
RUNS=${RUNS:-5}
CC=${CC:-cc}

if [ ! -f "$BUILD/libpcl.a" ]; then
	echo "bench: '$BUILD/libpcl.a' not found; run 'make' first" >&2
	exit 1
fi
TMP=$(mktemp -d /tmp/pcl-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# The libraries libpcl.a needs, as the .pc file lists them.
libs=$(sed -n 's/^Libs.private: *//p' "$BUILD/libpcl.pc" 2>/dev/null)
[ -n "$libs" ] || libs="-lelf -lzstd -liberty -lm -lpthread"

papi=(-DHAVE_PAPI=0)
printf '#include <papi.h>\nint main(void) { return PAPI_library_init(PAPI_VER_CURRENT) < 0; }\n' \
	>"$TMP/papi.c"
if "$CC" -o "$TMP/papi" "$TMP/papi.c" -lpapi >/dev/null 2>&1; then
	papi=(-DHAVE_PAPI=1 -lpapi)
else
	echo "bench: PAPI not found (Debian: apt-get install libpapi-dev); measuring without it"
fi

# shellcheck disable=SC2086 # $libs is a list of flags
if ! "$CC" -std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Iinclude -o "$TMP/read" bench/read.c \
	"$BUILD/libpcl.a" "${papi[@]}" $libs; then
	echo "bench: cannot build bench/read.c" >&2
	exit 1
fi
echo "== counter reads: libpcl, bare read(2), PAPI"
"$TMP/read" "$N" "$RUNS"
