#!/usr/bin/env bash
# The ABI of libpcl.so: it exports pcl_ names only, all under the version
# node PCL_0.1 of lib/libpcl.map, with the SONAME libpcl.so.0; and exactly
# the functions the public headers declare PCL_API.
. "$(dirname "$0")/lib.sh"

SO="$BUILD/libpcl.so"
INCLUDE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/include/pcl"
NODE=PCL_0.1
SONAME=libpcl.so.0

if ! command -v nm >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip "abi" "nm and objdump (binutils) are not installed"
	exit 0
fi
if [ ! -f "$SO" ]; then
	not_ok "abi-library" "no $SO: build it first (make)"
	exit 0
fi

# Defined dynamic symbols, without the version suffix nm adds (name@@NODE)
# and without the version node itself (an absolute symbol named PCL_0.1).
nm -D --defined-only "$SO" | awk '!($2 == "A" && $3 == "'$NODE'") { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$TMP/exported"

# 1. Nothing but pcl_ names.
grep -v '^pcl_' "$TMP/exported" >"$TMP/offenders"
if [ ! -s "$TMP/exported" ]; then
	not_ok "abi-exports-pcl-only" "nm -D --defined-only $SO lists no symbol at all"
elif [ -s "$TMP/offenders" ]; then
	not_ok "abi-exports-pcl-only" "$(wc -l <"$TMP/offenders") exported symbol(s) without the pcl_ prefix:" \
		"$(head -40 "$TMP/offenders")"
else
	ok "abi-exports-pcl-only"
fi

# 2. The SONAME.
soname=$(objdump -p "$SO" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" = "$SONAME" ]; then
	ok "abi-soname"
else
	not_ok "abi-soname" "SONAME of $SO is '$soname', expected '$SONAME'"
fi

# 3. The version node is defined, and every exported symbol carries it.
if ! objdump -p "$SO" | awk '/^Version definitions:/ { on = 1; next } /^$/ { on = 0 } on' |
	grep -qw "$NODE"; then
	defs=$(objdump -p "$SO" | grep -A4 'Version definitions')
	not_ok "abi-version-node" "no version definition $NODE in $SO (lib/libpcl.map not used?):" \
		"${defs:-objdump -p shows no Version definitions}"
else
	# objdump -T: ADDR FLAGS... SECTION SIZE VERSION NAME; defined = section not *UND*
	objdump -T "$SO" | awk '$NF ~ /^pcl_/ && !/\*UND\*/ && $(NF-1) != "'$NODE'" { print $(NF-1), $NF }' \
		>"$TMP/unversioned"
	if [ -s "$TMP/unversioned" ]; then
		not_ok "abi-version-node" "exported symbols not in $NODE (version, name):" "$(head -20 "$TMP/unversioned")"
	else
		ok "abi-version-node"
	fi
fi

# 4. Every function (or variable) declared PCL_API in include/pcl/*.h is
# exported, and nothing else is. A declaration runs from PCL_API to its ';'
# (comments and preprocessor lines removed first); the name is the last
# identifier before its first '(' (a function), else its last identifier.
perl -0777 -ne '
	s{/\*.*?\*/}{ }gs;
	s{//[^\n]*}{}g;
	s{^[ \t]*#[^\n]*(?:\\\n[^\n]*)*}{}gm;
	while (/\bPCL_API\b([^;{]*)/g) {
		my $d = $1;
		my $n;
		if ($d =~ /^([^(]*)\(/) { ($n) = $1 =~ /(\w+)\s*$/; }
		else { ($n) = $d =~ /(\w+)[\s\[\]\w]*$/; }
		print "$n $ARGV\n" if defined $n;
	}' "$INCLUDE"/*.h | sort -u >"$TMP/declared-where"
awk '{ print $1 }' "$TMP/declared-where" | sort -u >"$TMP/declared"

if [ ! -s "$TMP/declared" ]; then
	not_ok "abi-declared-exported" "found no PCL_API declaration in $INCLUDE/*.h"
else
	comm -23 "$TMP/declared" "$TMP/exported" >"$TMP/missing"
	if [ -s "$TMP/missing" ]; then
		mapfile -t lines < <(grep -Fwf "$TMP/missing" "$TMP/declared-where" | sed "s|$INCLUDE/|include/pcl/|" | head -40)
		not_ok "abi-declared-exported" "$(wc -l <"$TMP/missing") of $(wc -l <"$TMP/declared") PCL_API declarations not exported by $SO (name, header):" \
			"${lines[@]}"
	else
		ok "abi-declared-exported"
	fi
	comm -13 "$TMP/declared" "$TMP/exported" >"$TMP/undeclared"
	if [ -s "$TMP/undeclared" ]; then
		not_ok "abi-exported-declared" "$(wc -l <"$TMP/undeclared") exported symbol(s) that no public header declares PCL_API:" \
			"$(head -40 "$TMP/undeclared")"
	else
		ok "abi-exported-declared"
	fi
fi
