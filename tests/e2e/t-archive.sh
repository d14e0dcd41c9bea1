#!/usr/bin/env bash
# pcl archive: record a copy of a workload, archive, delete the binary,
# extract; pcl report --symfs DIR (and perf report --symfs DIR) name its
# symbols again, and the .debug part extracted into a build-id cache serves
# pcl and perf without --symfs. The cache part holds what perf archive's
# tarball holds for the same recording.
. "$(dirname "$0")/lib.sh"

have_perf || { skip archive "no perf to compare with"; exit 0; }
command -v tar >/dev/null && command -v bzip2 >/dev/null || { skip archive "no tar or bzip2 to extract with"; exit 0; }
export HOME="$TMP/home"
mkdir -p "$HOME"
unset PERF_BUILDID_DIR
src="$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c"
rid() { od -An -N20 -tx1 /dev/urandom | tr -d ' \n'; }
mkdir -p "$TMP/app" "$TMP/rec"
bin="$TMP/app/hot"
if ! cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id=0x"$(rid)" -o "$bin" "$src" 2>"$TMP/cc.err"; then
	not_ok archive-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi
id=$(readelf -n "$bin" | awk '/Build ID/ { print $3 }')
cd "$TMP/rec" || exit 1
"$PCL" record -q -o pcl.data -- "$bin" 150 >/dev/null 2>&1
hot_lines() { grep -E '^ +[0-9]' | grep -v '\[k\]'; } # user-space rows (kernel symbols depend on kallsyms rights)
"$PCL" report -i pcl.data --stdio --no-children 2>/dev/null | hot_lines >"$TMP/before"
run archive "$PCL" archive pcl.data
if [ "$RC" -ne 0 ] || [ ! -s pcl.data.tar.bz2 ]; then
	not_ok archive-create "pcl archive: exit $RC" "$(show "$TMP/archive.err")"
	exit 0
fi
if grep -q 'tar xvf pcl.data.tar.bz2' "$TMP/archive.out" && grep -q -- '--symfs' "$TMP/archive.out"; then
	ok archive-says-how
else
	not_ok archive-says-how "want the commands to extract and use it" "$(show "$TMP/archive.out")"
fi

# the recording, alone on "another machine": the binary and the cache are gone
mv "$bin" "$TMP/app/hot.away"
rm -rf "$HOME/.debug"
mkdir -p "$TMP/x"
tar xjf pcl.data.tar.bz2 -C "$TMP/x"
for tool in pcl perf; do
	cmd=perf
	[ $tool = pcl ] && cmd=$PCL
	$cmd report -i pcl.data --stdio --no-children --symfs "$TMP/x" 2>"$TMP/r.err" | hot_lines >"$TMP/symfs-$tool"
done
"$PCL" report -i pcl.data --stdio --no-children 2>/dev/null | hot_lines >"$TMP/without"
if grep -q '\[\.\] hot_leaf' "$TMP/without"; then
	not_ok archive-symfs "the test is void: hot_leaf resolves without the archive" "$(show "$TMP/without")"
elif grep -q '\[\.\] hot_leaf' "$TMP/symfs-pcl"; then
	diff_or_ok archive-symfs "$TMP/before" "$TMP/symfs-pcl" "pcl report before" "pcl report --symfs (archive)"
else
	not_ok archive-symfs "pcl report --symfs: no hot_leaf" "$(show "$TMP/symfs-pcl")" "$(show "$TMP/r.err")"
fi
diff_or_ok archive-symfs-perf "$TMP/symfs-perf" "$TMP/symfs-pcl" "perf report --symfs" "pcl report --symfs"

# as perf's: its .debug part extracts into a build-id cache
mkdir -p "$TMP/cache"
tar xjf pcl.data.tar.bz2 -C "$TMP/cache" --strip-components=1 .debug
for tool in pcl perf; do
	cmd=perf
	[ $tool = pcl ] && cmd=$PCL
	$cmd --buildid-dir "$TMP/cache" report -i pcl.data --stdio --no-children 2>/dev/null | hot_lines >"$TMP/cache-$tool"
done
if grep -q '\[\.\] hot_leaf' "$TMP/cache-perf"; then
	diff_or_ok archive-cache "$TMP/cache-perf" "$TMP/cache-pcl" "perf report (archive in cache)" "pcl report (archive in cache)"
else
	not_ok archive-cache "perf finds no hot_leaf in the extracted cache" "$(show "$TMP/cache-perf")" "$(ls -R "$TMP/cache" | head)"
fi

# what perf archive packs for the same recording and cache: the same files
mv "$TMP/app/hot.away" "$bin"
rm -rf "$TMP/c2"
perf --buildid-dir "$TMP/c2" record -q -e task-clock -o perf.data -- "$bin" 100 >/dev/null 2>&1
perf --buildid-dir "$TMP/c2" archive perf.data >/dev/null 2>&1
mv perf.data.tar.bz2 perf-made.tar.bz2
"$PCL" --buildid-dir "$TMP/c2" archive perf.data >/dev/null 2>"$TMP/a2.err"
tar tjf perf-made.tar.bz2 | grep -v '/$' | grep -v '/probes$' | sort >"$TMP/m-perf"
tar tjf perf.data.tar.bz2 | grep '^\.debug/' | sed 's|^\.debug/||' | sort >"$TMP/m-pcl"
if grep -q "$id" "$TMP/m-perf"; then
	diff_or_ok archive-like-perf "$TMP/m-perf" "$TMP/m-pcl" "perf archive" "pcl archive (.debug/)"
else
	not_ok archive-like-perf "oracle: perf archive lacks the workload" "$(show "$TMP/m-perf")"
fi

"$PCL" archive "$TMP/none.data" >/dev/null 2>"$TMP/bad.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && [ ! -e "$TMP/none.data.tar.bz2" ]; then
	ok archive-missing-input
else
	not_ok archive-missing-input "want one error line, a non-zero exit, no tarball" "exit $rc" "$(show "$TMP/bad.err")"
fi
