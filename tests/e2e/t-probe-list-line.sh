#!/usr/bin/env bash
# pcl probe -l names a probe past a function's entry, at a line-table row of the line
# the function is declared on as perf does: "FUNC@FILE", not "FUNC:0@FILE"
# (perf's synthesize_perf_probe_point writes no relative line 0).
. "$(dirname "$0")/lib.sh"

tfs=/sys/kernel/tracing
if [ "$(id -u)" != 0 ] || [ ! -w $tfs/uprobe_events ]; then
	skip probe-list-line "needs root and $tfs/uprobe_events"
	exit 0
fi
if ! command -v cc >/dev/null 2>&1; then
	skip probe-list-line "needs a C compiler"
	exit 0
fi
printf 'int oneline(int x) { return x + 1; }\nint main(int c, char **v) { (void)v; return oneline(c); }\n' >"$TMP/ol.c"
if ! cc -g -O0 -fno-omit-frame-pointer -o "$TMP/oneline" "$TMP/ol.c" 2>"$TMP/cc.err"; then
	skip probe-list-line "cc failed: $(head -1 "$TMP/cc.err")"
	exit 0
fi
# the second line-table row of line 1 (the first is oneline's entry)
entry=$(nm "$TMP/oneline" 2>/dev/null | awk '$3 == "oneline" { print $1 }')
row=$(objdump --dwarf=decodedline "$TMP/oneline" 2>/dev/null | awk '$1 == "ol.c" && $2 == 1 { n++; if (n == 2) { print $3; exit } }')
if [ -z "$entry" ] || [ -z "$row" ]; then
	skip probe-list-line "no second line-table row on line 1 (nm/objdump)"
	exit 0
fi
off=$((row - 0x$entry))
trap '"$PCL" probe -q -d "probe_oneline:*" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
run add "$PCL" probe -x "$TMP/oneline" "oneline+$off"
run list "$PCL" probe -l 'probe_oneline:*'
if [ $RC = 0 ] && grep -q "probe_oneline:oneline .*(on oneline@.*ol.c in " "$TMP/list.out"; then
	ok probe-list-line-zero
else
	not_ok probe-list-line-zero "want 'on oneline@...ol.c'" "$(show "$TMP/add.err")" "$(show "$TMP/list.out")"
fi
