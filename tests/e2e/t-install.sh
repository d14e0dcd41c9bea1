#!/usr/bin/env bash
# make install / make uninstall into DESTDIR and PREFIX: the binary, the
# libraries, the headers, libpcl.pc (naming PREFIX, not the staging root),
# the man pages and the bash completion; a program builds against the
# installed files with pkg-config; the installed pcl finds its man pages;
# uninstall leaves nothing behind.
. "$(dirname "$0")/lib.sh"

root="$(cd "$(dirname "$0")/../.." && pwd)"
case $BUILD in /*) build=$BUILD ;; *) build=$PWD/$BUILD ;; esac
prefix=/opt/pcl-test
dest=$TMP/stage
top=$dest$prefix

# the build is there already: install must not need to rebuild (or build anything but pages)
if ! make -C "$root" --no-print-directory -s BUILD="$build" DESTDIR="$dest" PREFIX="$prefix" install \
	>"$TMP/install.out" 2>&1; then
	not_ok install-runs "make install DESTDIR=$dest PREFIX=$prefix failed:" "$(show "$TMP/install.out" 20)"
	exit 0
fi
ok install-runs

# --- what is there --------------------------------------------------------------------------
miss=()
[ -x "$top/bin/pcl" ] || miss+=(bin/pcl)
[ -f "$top/lib/libpcl.so.0" ] || miss+=(lib/libpcl.so.0)
[ "$(readlink "$top/lib/libpcl.so")" = libpcl.so.0 ] || miss+=("lib/libpcl.so -> libpcl.so.0")
[ -f "$top/lib/libpcl.a" ] || miss+=(lib/libpcl.a)
for h in "$root"/include/pcl/*.h; do
	cmp -s "$h" "$top/include/pcl/$(basename "$h")" || miss+=("include/pcl/$(basename "$h")")
done
grep -qx "prefix=$prefix" "$top/lib/pkgconfig/libpcl.pc" 2>/dev/null || miss+=("lib/pkgconfig/libpcl.pc with prefix=$prefix")
for c in pcl $("$PCL" --list-cmds | sed 's/\([^ ]*\)/pcl-\1/g'); do
	cmp -s "$build/man/$c.1" "$top/share/man/man1/$c.1" || miss+=("share/man/man1/$c.1")
done
cmp -s "$root/scripts/pcl-completion.bash" "$top/share/bash-completion/completions/pcl" ||
	miss+=(share/bash-completion/completions/pcl)
if grep -rqs "$dest" "$top/lib/pkgconfig" "$top/share/bash-completion"; then
	miss+=("no file naming the staging root $dest")
fi
if [ ${#miss[@]} -eq 0 ]; then ok install-files; else
	not_ok install-files "missing or wrong under $top:" "${miss[@]}" "installed:" "$(cd "$dest" && find . | sort | head -40)"
fi

# --- it works from there -------------------------------------------------------------------
run ver "$top/bin/pcl" --version
if [ $RC = 0 ] && [ "$(cat "$TMP/ver.out")" = "$("$PCL" --version)" ]; then ok install-binary-runs; else
	not_ok install-binary-runs "the installed pcl --version: exit $RC:" "$(show "$TMP/ver.out")" "$(show "$TMP/ver.err")"
fi

# a program built against the installed headers and library, with pkg-config
cat >"$TMP/prog.c" <<'EOF'
#include <stdio.h>
#include <pcl/pcl.h>
int main(void) { printf("%s\n", pcl_version()); return 0; }
EOF
if ! command -v pkg-config >/dev/null 2>&1; then
	skip install-pkg-config "pkg-config is not installed"
elif readelf -d "$top/lib/libpcl.so.0" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
	skip install-pkg-config "a sanitizer build's libpcl.so needs the sanitizer runtime loaded first"
else
	export PKG_CONFIG_PATH=$top/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
	flags=$(pkg-config --cflags --libs libpcl 2>"$TMP/pc.err")
	# shellcheck disable=SC2086
	if cc -o "$TMP/prog" "$TMP/prog.c" $flags >"$TMP/cc.out" 2>&1 &&
		[ "$(LD_LIBRARY_PATH=$top/lib "$TMP/prog")" = "$("$PCL" --version | awk '{print $NF}')" ] &&
		LD_LIBRARY_PATH=$top/lib ldd "$TMP/prog" | grep -q "$top/lib/libpcl.so.0"; then
		ok install-pkg-config
	else
		not_ok install-pkg-config "cc prog.c \$(pkg-config --cflags --libs libpcl) [$flags] against $top: want a program that prints the version with the installed libpcl.so.0:" \
			"$(show "$TMP/cc.out")" "$(show "$TMP/pc.err")"
	fi
fi

if command -v man >/dev/null 2>&1; then
	MANPATH=$TMP/none MANPAGER=cat PAGER=cat run man "$top/bin/pcl" help stat
	if [ $RC = 0 ] && grep -q 'pcl-stat - count events' "$TMP/man.out"; then ok install-help-man; else
		not_ok install-help-man "the installed pcl help stat: want the installed man page; exit $RC:" "$(show "$TMP/man.out" 5)"
	fi
else
	skip install-help-man "man is not installed"
fi

got=$(PATH=$top/bin:$PATH bash -c '. "$1"; COMP_LINE="pcl annot"; COMP_POINT=9; COMP_WORDS=(pcl annot);
	COMP_CWORD=1; _pcl; echo "${COMPREPLY[*]}"' _ "$top/share/bash-completion/completions/pcl" 2>&1)
if [ "$got" = annotate ]; then ok install-completion; else
	not_ok install-completion "the installed completion script, 'pcl annot<TAB>': want annotate, got [$got]"
fi

# --- uninstall --------------------------------------------------------------------------------
if ! make -C "$root" --no-print-directory -s BUILD="$build" DESTDIR="$dest" PREFIX="$prefix" uninstall \
	>"$TMP/uninstall.out" 2>&1; then
	not_ok install-uninstall "make uninstall failed:" "$(show "$TMP/uninstall.out" 20)"
	exit 0
fi
left=$(cd "$dest" && find . ! -type d | sort)
if [ -z "$left" ] && [ ! -d "$top/include/pcl" ]; then ok install-uninstall; else
	not_ok install-uninstall "after make uninstall, still under $dest:" "$left" \
		"$([ -d "$top/include/pcl" ] && echo "the folder include/pcl")"
fi
