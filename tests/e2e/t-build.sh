#!/usr/bin/env bash
# The library's shape: exported symbols, make install, pkg-config, linking a program.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# Only pcl_ names leave libpcl.so (version script + -fvisibility=hidden).
bad=$(nm -D --defined-only "$BUILD/libpcl.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^pcl_' | grep -v '^PCL_' || true)
if [ -z "$bad" ] && nm -D --defined-only "$BUILD/libpcl.so" | grep -q ' pcl_evlist__open'; then
	ok "abi-only-pcl-symbols"
else
	not_ok "abi-only-pcl-symbols" "symbols exported that are not pcl_*:" "$bad"
fi

# make install puts the binary, both libraries, headers and a working .pc in place.
inst="$TMP/inst"
if make -s -C "$ROOT" BUILD="$BUILD" install PREFIX="$inst" >"$TMP/install.log" 2>&1; then
	missing=""
	for f in bin/pcl lib/libpcl.so lib/libpcl.a include/pcl/pcl.h include/pcl/evlist.h lib/pkgconfig/libpcl.pc; do
		[ -e "$inst/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then ok "install-layout"; else not_ok "install-layout" "missing:$missing"; fi
	cflags=$(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs libpcl 2>&1)
	# a sanitizer build of libpcl needs its runtime linked into the program too
	if nm -D "$BUILD/libpcl.so" | grep -q __asan_init; then cflags="$cflags -fsanitize=address,undefined"; fi
	if cc -o "$TMP/count" "$ROOT/examples/count-workload.c" $cflags -Wl,-rpath,"$inst/lib" 2>"$TMP/cc.log"; then
		out=$("$TMP/count" syscalls:sys_enter_write,task-clock /bin/echo hi 2>&1)
		n=$(echo "$out" | awk '/syscalls:sys_enter_write/ {print $1}')
		if [ "$n" = "1" ]; then ok "pkg-config-link-and-count"; else not_ok "pkg-config-link-and-count" "expected 1 write by echo, got:" "$out"; fi
	else
		not_ok "pkg-config-link-and-count" "cc failed with pkg-config flags '$cflags'" "$(cat "$TMP/cc.log")"
	fi
else
	not_ok "install-layout" "make install failed" "$(tail -5 "$TMP/install.log")"
fi

# --version and help
if "$PCL" --version | grep -Eq '^pcl version [0-9]+\.[0-9]+\.[0-9]+$'; then ok "version"; else not_ok "version" "$("$PCL" --version 2>&1)"; fi
