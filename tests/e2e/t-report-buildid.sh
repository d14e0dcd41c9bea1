#!/usr/bin/env bash
# A binary rebuilt after the recording: its build id no longer matches the
# one in the file, so pcl report and pcl script must not name its symbols
# from the new file (they would be wrong) and must say why, once; with
# --ignore-build-ids they use the file anyway. Also --symfs: the binary
# found under another root, by its recorded path.
. "$(dirname "$0")/lib.sh"

# perf's build-id cache (~/.debug) may hold this very build from other
# tests (builds are reproducible): use an empty one.
export PERF_BUILDID_DIR="$TMP/buildid-cache"
mkdir -p "$PERF_BUILDID_DIR"
has_record || { skip report-buildid "this pcl has no record command"; exit 0; }
src="$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c"
mkdir -p "$TMP/bin" "$TMP/root$TMP/bin"
bin="$TMP/bin/hot"
if ! cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id -o "$bin" "$src" 2>"$TMP/cc.err"; then
	not_ok report-buildid-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi
cp "$bin" "$TMP/root$bin"
# -N: pcl record fills the build-id cache as perf does, and a cached copy of
# the recorded build would be used instead of the mismatching file
if ! "$PCL" record -q -N -o "$TMP/p.data" -- "$bin" 200 >/dev/null 2>"$TMP/rec.err"; then
	not_ok report-buildid-record "pcl record failed" "$(cat "$TMP/rec.err")"
	exit 0
fi

# The binary as recorded: its hot function by name, no warning.
"$PCL" report --stdio --no-children -i "$TMP/p.data" >"$TMP/r0.txt" 2>"$TMP/r0.err"
if grep -q '\[\.\] hot_leaf' "$TMP/r0.txt" && ! grep -qi 'build id' "$TMP/r0.err"; then
	ok report-buildid-same
else
	not_ok report-buildid-same "want hot_leaf named and no build-id note" "$(head -20 "$TMP/r0.txt")" "$(cat "$TMP/r0.err")"
fi

# Rebuilt with other code: another build id at the same path.
cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id -DREBUILT=1 \
	-Dhot_leaf=renamed_leaf -o "$bin" "$src" 2>/dev/null
"$PCL" report --stdio --no-children -i "$TMP/p.data" >"$TMP/r1.txt" 2>"$TMP/r1.err"
rc=$?
nwarn=$(grep -ci 'build id mismatch' "$TMP/r1.err")
if [ $rc -eq 0 ] && [ "$nwarn" -eq 1 ] && ! grep -qE 'renamed_leaf|hot_leaf' "$TMP/r1.txt" &&
	grep -qE '^ +[0-9.]+%  hot +hot +\[\.\] 0x' "$TMP/r1.txt"; then
	ok report-buildid-mismatch
else
	not_ok report-buildid-mismatch "want exit 0, one 'build id mismatch' warning, and the hot samples as addresses" \
		"exit $rc, $nwarn warnings" "$(head -16 "$TMP/r1.txt")" "$(cat "$TMP/r1.err")"
fi

"$PCL" script -i "$TMP/p.data" >"$TMP/s1.txt" 2>"$TMP/s1.err"
if ! grep -qE 'renamed_leaf|hot_leaf' "$TMP/s1.txt" && grep -q 'unknown' "$TMP/s1.txt"; then
	ok report-buildid-script-mismatch
else
	not_ok report-buildid-script-mismatch "pcl script named symbols from a binary of another build" "$(head -5 "$TMP/s1.txt")"
fi

"$PCL" report --stdio --no-children --ignore-build-ids -i "$TMP/p.data" >"$TMP/r2.txt" 2>"$TMP/r2.err"
if grep -q '\[\.\] renamed_leaf' "$TMP/r2.txt"; then
	ok report-buildid-ignore
else
	not_ok report-buildid-ignore "--ignore-build-ids: want the rebuilt file's names" "$(head -16 "$TMP/r2.txt")" "$(cat "$TMP/r2.err")"
fi

# --symfs: the original binary under another root is found by its path.
"$PCL" report --stdio --no-children --symfs "$TMP/root" -i "$TMP/p.data" >"$TMP/r3.txt" 2>"$TMP/r3.err"
if grep -q '\[\.\] hot_leaf' "$TMP/r3.txt" && ! grep -qi 'mismatch' "$TMP/r3.err"; then
	ok report-buildid-symfs
else
	not_ok report-buildid-symfs "--symfs: want hot_leaf from $TMP/root$bin" "$(head -16 "$TMP/r3.txt")" "$(cat "$TMP/r3.err")"
fi
