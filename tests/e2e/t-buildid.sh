#!/usr/bin/env bash
# pcl buildid-list and pcl buildid-cache against perf 6.1 on the same inputs:
# the same lines for perf's and pcl's files and streams; one ~/.debug layout
# (perf lists and uses what pcl cached, and the other way round); record's
# cache fill, -N and --buildid-all; --buildid-dir and PERF_BUILDID_DIR;
# reports that take a binary from the cache when its path is gone or holds
# another build; and perf's own tests/shell/buildid.sh with pcl as perf.
. "$(dirname "$0")/lib.sh"

have_perf || { skip buildid "no perf to compare with"; exit 0; }
# no test may use (or fill) the user's ~/.debug: every cache is under $TMP
export HOME="$TMP/home"
mkdir -p "$HOME"
unset PERF_BUILDID_DIR
src="$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c"
# a build id no other test has: the caches start out without it
rid() { od -An -N20 -tx1 /dev/urandom | tr -d ' \n'; }
build() { # OUT BUILD-ID-STYLE ("": a random one) [CC FLAGS...]
	local out=$1 style=${2:-0x$(rid)}
	shift 2
	cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id="$style" "$@" \
		-o "$out" "$src" 2>"$TMP/cc.err"
}
bid_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }'; }
mkdir -p "$TMP/bin"
bin="$TMP/bin/hot"
if ! build "$bin" ""; then
	not_ok buildid-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi
id=$(bid_of "$bin")

# ---- buildid-list: perf's and pcl's recordings, files and streams ----
perf record -q -e task-clock -o "$TMP/perf.data" -- "$bin" 100 >/dev/null 2>&1
perf record -q -e task-clock -o - -- "$bin" 100 2>/dev/null >"$TMP/perf.pipe"
"$PCL" record -q -N -o "$TMP/pcl.data" -- "$bin" 100 >/dev/null 2>&1
"$PCL" record -q -o - -- "$bin" 100 2>/dev/null >"$TMP/pcl.pipe"
build "$TMP/bin/nobid" none && perf record -q -e task-clock -o "$TMP/nobid.data" -- "$TMP/bin/nobid" 100 >/dev/null 2>&1
for f in perf.data perf.pipe pcl.data pcl.pipe nobid.data; do
	for h in "" -H; do
		name=buildid-list-${f/./-}${h:+-hits}
		perf buildid-list $h -i "$TMP/$f" >"$TMP/p.out" 2>/dev/null
		"$PCL" buildid-list $h -i "$TMP/$f" >"$TMP/c.out" 2>"$TMP/c.err"
		if [[ $f == *.pipe ]]; then
			# a sample in the vDSO, read from a stream: perf 6.1 names the
			# temporary copy it made, /tmp/perf-vdso.so-XXXXXX, with a
			# blank build id; pcl says '[vdso]', with the build id the
			# stream holds for it (a documented difference)
			sed -i -E 's|^ +/tmp/perf-vdso\.so-[A-Za-z0-9]+$|(vdso)|' "$TMP/p.out"
			sed -i -E 's|^[0-9a-f ]+ \[vdso\]$|(vdso)|' "$TMP/c.out"
		fi
		if [ ! -s "$TMP/p.out" ]; then
			not_ok "$name" "oracle: perf buildid-list $h -i $f printed nothing"
		elif grep -q "$id $bin\$" "$TMP/p.out" || [ "$f" = nobid.data ] ||
			{ [ "$f" = perf.pipe ] && grep -q " $bin\$" "$TMP/p.out"; }; then
			# (perf record writes no build ids into a stream)
			diff_or_ok "$name" "$TMP/p.out" "$TMP/c.out" "perf buildid-list $h" "pcl buildid-list $h"
		else
			not_ok "$name" "perf's list lacks the workload ($id $bin)" "$(show "$TMP/p.out")"
		fi
	done
done
for what in "-k" "-i $bin"; do
	perf buildid-list $what >"$TMP/p.out" 2>/dev/null
	"$PCL" buildid-list $what >"$TMP/c.out" 2>&1
	if [ -s "$TMP/p.out" ]; then
		diff_or_ok "buildid-list${what%% *}" "$TMP/p.out" "$TMP/c.out" "perf buildid-list $what" "pcl buildid-list $what"
	else
		skip "buildid-list${what%% *}" "perf buildid-list $what printed nothing here"
	fi
done
"$PCL" buildid-list -i "$TMP/nonexistent.data" >/dev/null 2>"$TMP/e.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/e.err")" -eq 1 ] && ! crashed "$TMP/e.err" $rc; then
	ok buildid-list-missing-file
else
	not_ok buildid-list-missing-file "want one error line and a non-zero exit" "exit $rc" "$(show "$TMP/e.err")"
fi

# ---- buildid-cache: the layout perf makes, and each tool reading the other's ----
build "$TMP/bin/md5" md5 && md5=$(bid_of "$TMP/bin/md5")
for tool in perf pcl; do
	cmd=perf
	[ $tool = pcl ] && cmd=$PCL
	rm -rf "$TMP/c-$tool"
	$cmd --buildid-dir "$TMP/c-$tool" buildid-cache -a "$bin,$TMP/bin/md5" >/dev/null 2>"$TMP/add-$tool.err"
	# perf's SDT note cache ("probes") is perf probe's, not the build-id cache's
	(cd "$TMP/c-$tool" && find . \( -type f -o -type l \) ! -name probes -printf '%y %p %l\n' | sort) >"$TMP/layout-$tool"
done
diff_or_ok buildid-cache-add-layout "$TMP/layout-perf" "$TMP/layout-pcl" "perf buildid-cache -a" "pcl buildid-cache -a"
if cmp -s "$bin" "$TMP/c-pcl/.build-id/${id:0:2}/$(readlink "$TMP/c-pcl/.build-id/${id:0:2}/${id:2}")/elf"; then
	ok buildid-cache-add-copy
else
	not_ok buildid-cache-add-copy "the cached elf is not the file" "$(cat "$TMP/layout-pcl")"
fi
for dir in perf pcl; do
	perf --buildid-dir "$TMP/c-$dir" buildid-cache -l >"$TMP/l-perf" 2>/dev/null
	"$PCL" --buildid-dir "$TMP/c-$dir" buildid-cache -l >"$TMP/l-pcl" 2>"$TMP/l.err"
	if grep -q "^$id $bin\$" "$TMP/l-perf" && grep -q "^$md5 $TMP/bin/md5\$" "$TMP/l-perf"; then
		diff_or_ok "buildid-cache-list-$dir-made" "$TMP/l-perf" "$TMP/l-pcl" "perf buildid-cache -l" "pcl buildid-cache -l"
	else
		not_ok "buildid-cache-list-$dir-made" "perf -l lacks the two files $dir cached" "$(show "$TMP/l-perf")"
	fi
done
# PERF_BUILDID_DIR names the cache as --buildid-dir does
PERF_BUILDID_DIR="$TMP/c-pcl" "$PCL" buildid-cache -l >"$TMP/l-env" 2>&1
diff_or_ok buildid-cache-env-dir "$TMP/l-pcl" "$TMP/l-env" "--buildid-dir" "PERF_BUILDID_DIR"
"$PCL" --buildid-dir "$TMP/c-pcl" buildid-cache -v -a "$bin" >/dev/null 2>"$TMP/v.err"
if grep -qx "Adding $id $bin: Ok" "$TMP/v.err"; then ok buildid-cache-verbose; else not_ok buildid-cache-verbose "want perf's 'Adding ID FILE: Ok'" "$(show "$TMP/v.err")"; fi

# -M: what a recording needs that the cache lacks, as perf says it
for dir in c-pcl empty; do
	perf --buildid-dir "$TMP/$dir" buildid-cache -M "$TMP/perf.data" >"$TMP/m-perf" 2>/dev/null
	"$PCL" --buildid-dir "$TMP/$dir" buildid-cache -M "$TMP/perf.data" >"$TMP/m-pcl" 2>"$TMP/m.err"
	diff_or_ok "buildid-cache-missing-$dir" "$TMP/m-perf" "$TMP/m-pcl" "perf buildid-cache -M" "pcl buildid-cache -M"
done

# -r, -u, -p, -P: what is left is what perf's -l (and the tree) shows
cp -a "$TMP/c-pcl" "$TMP/c-rm"
"$PCL" --buildid-dir "$TMP/c-rm" buildid-cache -r "$TMP/bin/md5" 2>"$TMP/r.err"
perf --buildid-dir "$TMP/c-rm" buildid-cache -l >"$TMP/l-rm" 2>/dev/null
if ! grep -q "$md5" "$TMP/l-rm" && grep -q "$id" "$TMP/l-rm" && [ ! -e "$TMP/c-rm/.build-id/${md5:0:2}/${md5:2}" ] &&
	[ ! -e "$TMP/c-rm$TMP/bin/md5/$md5" ]; then
	ok buildid-cache-remove
else
	not_ok buildid-cache-remove "want md5's entry gone, the other kept" "$(show "$TMP/l-rm")" "$(show "$TMP/r.err")"
fi
cp "$bin" "$TMP/bin/hot.keep"
build "$bin" "" && id2=$(bid_of "$bin")
"$PCL" --buildid-dir "$TMP/c-rm" buildid-cache -u "$bin" 2>"$TMP/u.err"
"$PCL" --buildid-dir "$TMP/c-rm" buildid-cache -p "$bin" 2>"$TMP/p.err"
if [ -z "$(ls -A "$TMP/c-rm$bin" 2>/dev/null)" ] && [ ! -e "$TMP/c-rm/.build-id/${id:0:2}/${id:2}" ] &&
	[ ! -e "$TMP/c-rm/.build-id/${id2:0:2}/${id2:2}" ]; then
	ok buildid-cache-purge
else
	not_ok buildid-cache-purge "-p: want both builds of $bin gone" "$(ls -R "$TMP/c-rm" | head -20)" "$(show "$TMP/p.err")"
fi
cp "$TMP/bin/hot.keep" "$bin"
"$PCL" --buildid-dir "$TMP/c-pcl" buildid-cache -P 2>"$TMP/pa.err"
if [ -d "$TMP/c-pcl/.build-id" ] && [ -z "$(find "$TMP/c-pcl" -type l -o -type f)" ] &&
	[ -z "$(perf --buildid-dir "$TMP/c-pcl" buildid-cache -l 2>/dev/null)" ]; then
	ok buildid-cache-purge-all
else
	not_ok buildid-cache-purge-all "-P: want an empty cache" "$(ls -R "$TMP/c-pcl" | head)"
fi
"$PCL" --buildid-dir "$TMP/c-pcl" buildid-cache -a "$TMP/nonexistent" 2>"$TMP/bad.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q nonexistent "$TMP/bad.err" &&
	grep -q "No such file or directory" "$TMP/bad.err"; then
	ok buildid-cache-add-missing
else
	not_ok buildid-cache-add-missing "want one error line naming the file and why (no such file, as perf says), and a non-zero exit" "exit $rc" "$(show "$TMP/bad.err")"
fi
# an ELF that is there but has no build id says so
if echo 'int main(void) { return 0; }' | cc -x c -Wl,--build-id=none -o "$TMP/noid" - 2>/dev/null; then
	"$PCL" --buildid-dir "$TMP/c-pcl" buildid-cache -a "$TMP/noid" 2>"$TMP/noid.err"
	if [ $? -ne 0 ] && grep -q "noid': no build id in it" "$TMP/noid.err"; then
		ok buildid-cache-add-no-id
	else
		not_ok buildid-cache-add-no-id "want 'no build id in it'" "$(show "$TMP/noid.err")"
	fi
else
	skip buildid-cache-add-no-id "cc cannot link without a build id here"
fi

# ---- record fills the cache, as perf record does ----
lib_ok() { grep -q " /usr/lib/.*libc.so.6\$" "$1"; }
for tool in perf pcl; do
	cmd=perf
	[ $tool = pcl ] && cmd=$PCL
	rm -rf "$TMP/r-$tool"
	$cmd --buildid-dir "$TMP/r-$tool" record -q --buildid-all -e task-clock -o "$TMP/r-$tool.data" -- "$bin" 50 >/dev/null 2>&1
	perf --buildid-dir "$TMP/r-$tool" buildid-cache -l 2>/dev/null | sort >"$TMP/rl-$tool"
done
if grep -q "^$id $bin\$" "$TMP/rl-perf" && lib_ok "$TMP/rl-perf"; then
	diff_or_ok buildid-record-all-cache "$TMP/rl-perf" "$TMP/rl-pcl" "perf record --buildid-all" "pcl record --buildid-all"
else
	not_ok buildid-record-all-cache "oracle: perf's cache lacks the workload or libc" "$(show "$TMP/rl-perf")"
fi
rm -rf "$TMP/r-N"
"$PCL" --buildid-dir "$TMP/r-N" record -q -N -o "$TMP/rN.data" -- "$bin" 50 >/dev/null 2>&1
if [ ! -e "$TMP/r-N" ] && "$PCL" buildid-list -i "$TMP/rN.data" | grep -q "$id"; then
	ok buildid-record-no-cache
else
	not_ok buildid-record-no-cache "-N: want no cache, and the build ids still in the file" "$(ls -R "$TMP/r-N" 2>&1 | head -5)"
fi
# a stream has no table to fill the cache from: a FIFO -o ends as soon as its
# reader has the stream (the cache fill must not open the FIFO again)
mkfifo "$TMP/fifo"
timeout 30 cat "$TMP/fifo" >"$TMP/fifo.stream" &
reader=$!
rm -rf "$TMP/r-fifo"
timeout -k 2 20 "$PCL" --buildid-dir "$TMP/r-fifo" record -q -o "$TMP/fifo" -- "$bin" 50 >/dev/null 2>"$TMP/fifo.err"
rc=$?
wait "$reader"
if [ $rc -eq 0 ] && [ ! -e "$TMP/r-fifo" ] && [ -s "$TMP/fifo.stream" ]; then
	ok buildid-record-fifo
else
	not_ok buildid-record-fifo "pcl record -o FIFO: exit $rc (124: hung), want 0 and no cache" "$(show "$TMP/fifo.err")"
fi
# --switch-output: each file names the files its own samples hit, also those
# mapped before it began
mkdir -p "$TMP/sw"
(cd "$TMP/sw" && timeout 60 "$PCL" record -q -N --switch-output=1s -o s.data -- "$bin" 2500 >/dev/null 2>&1)
nf=0 nbad=0
for f in "$TMP"/sw/s.data.*; do
	[ -e "$f" ] || continue
	nf=$((nf + 1))
	if perf report -i "$f" --stdio --no-children 2>/dev/null | grep -q '\[\.\] hot_leaf' &&
		! perf buildid-list -i "$f" 2>/dev/null | grep -q "^$id $bin\$"; then
		nbad=$((nbad + 1))
	fi
done
if [ $nf -ge 2 ] && [ $nbad -eq 0 ]; then
	ok buildid-record-switch-output
else
	not_ok buildid-record-switch-output "$nf files (want 2 or more), $nbad with hot_leaf samples but not its build id" "$(ls "$TMP/sw")"
fi
# the default cache is ~/.debug (HOME is under $TMP here)
"$PCL" record -q -o "$TMP/rh.data" -- "$bin" 50 >/dev/null 2>&1
if [ -L "$HOME/.debug/.build-id/${id:0:2}/${id:2}" ]; then ok buildid-record-home-cache; else not_ok buildid-record-home-cache "want $HOME/.debug to hold $bin"; fi

# ---- reports take the cached binary when the path is gone or another build ----
"$PCL" --buildid-dir "$TMP/rc" record -q -o "$TMP/rc.data" -- "$bin" 100 >/dev/null 2>&1
mv "$bin" "$TMP/bin/hot.moved"
for state in gone rebuilt; do
	[ $state = rebuilt ] && build "$bin" "" -DREBUILT=1 -Dhot_leaf=renamed_leaf
	for tool in perf pcl; do
		cmd=perf
		[ $tool = pcl ] && cmd=$PCL
		$cmd --buildid-dir "$TMP/rc" report -i "$TMP/rc.data" --stdio --no-children 2>"$TMP/rep.err" |
			grep -E '^ +[0-9]' >"$TMP/rep-$tool"
	done
	if grep -q '\[\.\] hot_leaf' "$TMP/rep-perf"; then
		if grep -q '\[\.\] hot_leaf' "$TMP/rep-pcl"; then
			diff_or_ok "buildid-report-cache-$state" "$TMP/rep-perf" "$TMP/rep-pcl" "perf report" "pcl report"
		else
			not_ok "buildid-report-cache-$state" "pcl did not take hot_leaf from the cache" "$(show "$TMP/rep-pcl")" "$(show "$TMP/rep.err")"
		fi
	else
		not_ok "buildid-report-cache-$state" "oracle: perf did not take hot_leaf from the cache" "$(show "$TMP/rep-perf")"
	fi
	"$PCL" --buildid-dir "$TMP/rc" script -i "$TMP/rc.data" 2>/dev/null | grep -c hot_leaf >"$TMP/sc.n"
	"$PCL" --buildid-dir "$TMP/rc" annotate -i "$TMP/rc.data" --stdio hot_leaf >"$TMP/an.out" 2>&1
	if [ "$(cat "$TMP/sc.n")" -gt 0 ] && grep -q 'hot_leaf' "$TMP/an.out"; then
		ok "buildid-script-annotate-cache-$state"
	else
		not_ok "buildid-script-annotate-cache-$state" "want hot_leaf in pcl script and annotate" "script lines: $(cat "$TMP/sc.n")" "$(show "$TMP/an.out")"
	fi
done
cp "$TMP/bin/hot.keep" "$bin"

# ---- perf's own test, with pcl as perf ----
mkdir -p "$TMP/shim"
ln -sf "$PCL" "$TMP/shim/perf"
PATH="$TMP/shim:$PATH" bash /usr/lib/perf-core/tests/shell/buildid.sh >"$TMP/sh.out" 2>&1
rc=$?
nok=$(grep -c '^OK for ' "$TMP/sh.out")
if [ $rc -eq 0 ] && [ "$nok" -eq 4 ]; then
	ok buildid-perf-shell-test
else
	not_ok buildid-perf-shell-test "perf's buildid.sh with pcl as perf: exit $rc, $nok of 4 'OK for' lines" "$(tail -15 "$TMP/sh.out")"
fi
