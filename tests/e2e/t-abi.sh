#!/usr/bin/env bash
# The ABI of libpcl.so. It exports pcl_ names only, with the SONAME
# libpcl.so.0, in two version nodes of lib/libpcl.map:
#  - PCL_0.1, the stable API: exactly the PCL_API functions of the headers
#    in abi/stable-headers, named one by one in the map;
#  - PCL_UNSTABLE_0.1, every other PCL_API function (the command's layers),
#    exported but no promise (README: "The library").
# No two public names differ only by underscores. And the stable API's ABI
# (abidiff) is the one committed in abi/libpcl.abi: `make abi-update` after a
# deliberate change.
. "$(dirname "$0")/lib.sh"

SO="$BUILD/libpcl.so"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
INCLUDE="$ROOT/include/pcl"
MAP="$ROOT/lib/libpcl.map"
STABLE=PCL_0.1
UNSTABLE=PCL_UNSTABLE_0.1
SONAME=libpcl.so.0

if ! command -v nm >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip "abi" "nm and objdump (binutils) are not installed"
	exit 0
fi
if [ ! -f "$SO" ]; then
	not_ok "abi-library" "no $SO: build it first (make)"
	exit 0
fi

# Defined dynamic symbols as "NODE NAME" (objdump -T: ... VERSION NAME), and
# the names alone.
objdump -T "$SO" | awk '!/\*UND\*/ && !/\*ABS\*/ && $NF !~ /^PCL_/ && NF >= 7 { print $(NF-1), $NF }' |
	sort -u >"$TMP/exported-nodes"
awk '{ print $2 }' "$TMP/exported-nodes" | sort -u >"$TMP/exported"

# 1. Nothing but pcl_ names.
grep -v '^pcl_' "$TMP/exported" >"$TMP/offenders"
if [ ! -s "$TMP/exported" ]; then
	not_ok "abi-exports-pcl-only" "objdump -T $SO lists no defined symbol at all"
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

# 3. Both version nodes are defined, and every exported symbol is in one.
defs=$(objdump -p "$SO" | awk '/^Version definitions:/ { on = 1; next } /^$/ { on = 0 } on')
awk -v s="$STABLE" -v u="$UNSTABLE" '$1 != s && $1 != u' "$TMP/exported-nodes" >"$TMP/unversioned"
if ! grep -qw "$STABLE" <<<"$defs" || ! grep -qw "$UNSTABLE" <<<"$defs"; then
	not_ok "abi-version-nodes" "version definitions of $SO lack $STABLE or $UNSTABLE (lib/libpcl.map not used?):" \
		"${defs:-objdump -p shows no Version definitions}"
elif [ -s "$TMP/unversioned" ]; then
	not_ok "abi-version-nodes" "exported symbols in neither $STABLE nor $UNSTABLE (version, name):" \
		"$(head -20 "$TMP/unversioned")"
else
	ok "abi-version-nodes"
fi

# Declarations: "NAME HEADER" for every PCL_API declaration, and the stable ones.
perl "$ROOT/scripts/api-names.pl" "$INCLUDE"/*.h | sed "s|$INCLUDE/||" | sort -u >"$TMP/declared-where"
awk '{ print $1 }' "$TMP/declared-where" | sort -u >"$TMP/declared"
awk 'NR == FNR { st[$1] = 1; next } ($2 in st) { print $1 }' "$ROOT/abi/stable-headers" \
	"$TMP/declared-where" | sort -u >"$TMP/declared-stable"
# The map's PCL_0.1 list, and the stable names the library exports there.
awk '/^PCL_0\.1 /,/local:/' "$MAP" | sed -n 's/^[[:space:]]*\(pcl_[A-Za-z0-9_]*\);.*/\1/p' |
	sort >"$TMP/map-stable-all"
sort -u "$TMP/map-stable-all" >"$TMP/map-stable"
awk -v s="$STABLE" '$1 == s { print $2 }' "$TMP/exported-nodes" | sort -u >"$TMP/exported-stable"

# 4. Every PCL_API declaration is exported, and nothing else is.
if [ ! -s "$TMP/declared" ]; then
	not_ok "abi-declared-exported" "found no PCL_API declaration in $INCLUDE/*.h"
else
	comm -23 "$TMP/declared" "$TMP/exported" >"$TMP/missing"
	comm -13 "$TMP/declared" "$TMP/exported" >"$TMP/undeclared"
	if [ -s "$TMP/missing" ] || [ -s "$TMP/undeclared" ]; then
		mapfile -t lines < <(grep -Fwf "$TMP/missing" "$TMP/declared-where" | head -40)
		not_ok "abi-declared-exported" \
			"$(wc -l <"$TMP/missing") PCL_API declaration(s) not exported (name, header):" "${lines[@]}" \
			"$(wc -l <"$TMP/undeclared") exported symbol(s) no header declares PCL_API:" \
			"$(head -40 "$TMP/undeclared")"
	else
		ok "abi-declared-exported"
	fi
fi

# 5. PCL_0.1 is the stable headers' PCL_API functions: the map lists exactly
# them (once each), and the library exports exactly the map's list there.
comm -23 "$TMP/declared-stable" "$TMP/map-stable" >"$TMP/stable-unlisted"
comm -13 "$TMP/declared-stable" "$TMP/map-stable" >"$TMP/stable-extra"
uniq -d "$TMP/map-stable-all" >"$TMP/map-dups"
if [ ! -s "$TMP/declared-stable" ]; then
	not_ok "abi-stable-node" "no PCL_API declaration in the headers of abi/stable-headers"
elif [ -s "$TMP/stable-unlisted" ] || [ -s "$TMP/stable-extra" ] || [ -s "$TMP/map-dups" ] ||
	! cmp -s "$TMP/map-stable" "$TMP/exported-stable"; then
	not_ok "abi-stable-node" \
		"declared PCL_API in a stable header but not listed in $STABLE of lib/libpcl.map:" \
		"$(cat "$TMP/stable-unlisted")" \
		"listed in $STABLE but not declared PCL_API in a stable header:" "$(cat "$TMP/stable-extra")" \
		"listed twice:" "$(cat "$TMP/map-dups")" \
		"listed vs exported in $STABLE by $SO:" \
		"$(diff "$TMP/map-stable" "$TMP/exported-stable" | grep '^[<>]' | head -20)"
else
	ok "abi-stable-node"
fi

# 6. No two public names (PCL_API declarations, exported symbols) differ only
# by underscores: pcl_counters_open and pcl_counters__open did.
sort -u "$TMP/declared" "$TMP/exported" | awk '{ k = $1; gsub(/_/, "", k); print k, $1 }' | sort |
	awk '$1 == prev { print prevname " / " $2 } { prev = $1; prevname = $2 }' >"$TMP/underscores"
if [ -s "$TMP/underscores" ]; then
	not_ok "abi-names-underscores" "public names that differ only by underscores:" "$(cat "$TMP/underscores")"
else
	ok "abi-names-underscores"
fi

# 7. The stable API's ABI is the committed one (abi/libpcl.abi).
if ! command -v abidiff >/dev/null 2>&1 || ! command -v abidw >/dev/null 2>&1; then
	skip "abi-baseline" "abidw/abidiff (abigail-tools) are not installed"
elif [ "$(uname -m)" != x86_64 ]; then
	skip "abi-baseline" "abi/libpcl.abi is the x86_64 ABI; this machine is $(uname -m)"
else
	"$ROOT/scripts/abi.sh" check "$SO" >"$TMP/abidiff" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "abi-baseline"
	else
		not_ok "abi-baseline" "the stable API of $SO differs from abi/libpcl.abi (scripts/abi.sh check: $rc);" \
			"if the change is deliberate: make abi-update, and commit abi/libpcl.abi" \
			"$(head -60 "$TMP/abidiff")"
	fi
fi
