#!/usr/bin/env bash
# Debug info from a debuginfod server (DEBUGINFOD_URLS). The test starts
# Debian's debuginfod on a local port over a folder holding the unstripped
# builds of a workload, records the STRIPPED builds (no debug file anywhere
# on this machine), and checks that pcl report, with DEBUGINFOD_URLS set,
# gets:
#  - the names of functions only .symtab has, as perf gives them with the
#    same debug file on local disk (perf 6.1 here is built without
#    debuginfod, so the local file is its side of the comparison);
#  - the debug file in libdebuginfod's cache ($DEBUGINFOD_CACHE_PATH),
#    byte for byte the server's, and from that cache once the server is gone;
#  - the executable when the recorded file itself is gone;
#  - source lines (--sort srcline) as perf's, once pcl has that sort key;
#  - CFI: a build whose only CFI is .debug_frame, which stripping removes,
#    unwinds (--call-graph dwarf) only with the server, once pcl report
#    unwinds dwarf samples at all (told by what it does on the unstripped
#    build, which has its .debug_frame);
# and that without DEBUGINFOD_URLS it gets none of it, that a file no
# server has is said once, and that a dead server costs one failed look-up
# and a warning, not a hang.
. "$(dirname "$0")/lib.sh"

command -v debuginfod >/dev/null 2>&1 ||
	{ skip debuginfod "Debian's debuginfod server is not installed (scripts/deps.sh)"; exit 0; }
has_record || { skip debuginfod "this pcl has no record command"; exit 0; }
for t in strip readelf cc; do
	command -v $t >/dev/null 2>&1 || { skip debuginfod "no $t"; exit 0; }
done

# Nothing of this machine's configuration: no servers of its own, an empty
# client cache and build-id cache of the test's.
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_TIMEOUT
export DEBUGINFOD_CACHE_PATH="$TMP/client-cache"
# (and pcl record -N below: a copy it put in the cache would stand in for the
# files the servers are to give)
export PERF_BUILDID_DIR="$TMP/buildid-cache"
mkdir -p "$PERF_BUILDID_DIR" "$TMP/srv" "$TMP/bin"

SERVER_PID=
stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
		SERVER_PID=
	fi
}
trap 'stop_server; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

src="$(cd "$(dirname "$0")/.." && pwd)/workloads/hot.c"
# build NAME CFLAGS...: $TMP/srv/NAME unstripped (what the server holds),
# $TMP/bin/NAME stripped (what runs and is recorded).
build() {
	local name=$1
	shift
	cc -std=gnu11 -O1 -g -fno-inline -Wl,--build-id "$@" -o "$TMP/srv/$name" "$src" 2>"$TMP/cc.err" &&
		strip -s -o "$TMP/bin/$name" "$TMP/srv/$name"
}
build_id() { readelf -n "$1" | awk '/Build ID/ { print $3; exit }'; }
if ! build hot -fno-omit-frame-pointer ||
	! build nocfi -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables; then
	not_ok debuginfod-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi
ID=$(build_id "$TMP/srv/hot")
# A build the server does not hold.
if ! cc -std=gnu11 -O2 -g -fno-inline -Wl,--build-id -o "$TMP/other.full" "$src" 2>"$TMP/cc.err" ||
	! strip -s -o "$TMP/bin/other" "$TMP/other.full"; then
	not_ok debuginfod-build "cannot build hot.c" "$(cat "$TMP/cc.err")"
	exit 0
fi

# http_status PORT PATH: the status code of GET PATH on 127.0.0.1:PORT (bash's /dev/tcp).
http_status() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
		read -r -t 5 line <&3
		line=${line%$'\r'}
		echo "${line#* }" | cut -d' ' -f1
	) 2>/dev/null
}

# The server, on a free port of this machine's: it listens on all
# addresses (0.188 has no bind option), is asked only on 127.0.0.1, and
# serves only $TMP/srv. It is ready when it serves the debuginfo of hot.
PORT=
for try in 1 2 3 4 5; do
	p=$((20000 + RANDOM % 30000))
	env -u DEBUGINFOD_URLS debuginfod -p "$p" -F "$TMP/srv" -d "$TMP/dfd-$try.sqlite" -t 0 -g 0 \
		>"$TMP/server.log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 1 100); do
		kill -0 "$SERVER_PID" 2>/dev/null || break
		[ "$(http_status "$p" "/buildid/$ID/debuginfo")" = 200 ] && { PORT=$p; break; }
		sleep 0.2
	done
	[ -n "$PORT" ] && break
	stop_server # the port was taken, or it never scanned: another port
done
if [ -z "$PORT" ]; then
	not_ok debuginfod-server "debuginfod did not serve $TMP/srv on a local port in 5 tries" \
		"$(tail -20 "$TMP/server.log")"
	exit 0
fi
URL="http://127.0.0.1:$PORT"

# The recordings: stripped hot, and other (which no server has).
for w in hot other; do
	if ! "$PCL" record -q -N -e cpu-clock -o "$TMP/$w.data" -- "$TMP/bin/$w" 300 >/dev/null 2>"$TMP/rec.err"; then
		not_ok debuginfod-record "pcl record of $w failed" "$(show "$TMP/rec.err")"
		exit 0
	fi
done

# report TAG [URLS] ARGS...: pcl report --stdio into $TMP/TAG.out/.err, with
# DEBUGINFOD_URLS set to URLS when not "-".
report() {
	local tag=$1 urls=$2
	shift 2
	if [ "$urls" = - ]; then
		run_long "$tag" 60 "$PCL" report --stdio --no-children "$@"
	else
		DEBUGINFOD_URLS="$urls" run_long "$tag" 60 "$PCL" report --stdio --no-children "$@"
	fi
}
named() { grep -qE '\[\.\] hot_leaf' "$1" && grep -qE '\[\.\] warm_helper' "$1"; }
# warned_once NAME TAG WHAT WORDS [EXTRA]: ok when the report TAG exited 0,
# printed its rows (EXTRA, an ERE its stdout must match; default: an address
# row of the stripped binary), and said exactly one debuginfod line on
# stderr, holding WORDS (fixed text). WHAT is the case, for the failure.
warned_once() {
	local name=$1 tag=$2 what=$3 words=$4 extra=${5:-'\[\.\] 0x'} n
	n=$(grep -c 'debuginfod' "$TMP/$tag.err")
	if [ "$RC" -eq 0 ] && [ "$n" -eq 1 ] && grep -qF -- "$words" "$TMP/$tag.err" &&
		grep -qE -- "$extra" "$TMP/$tag.out"; then
		ok "$name"
	else
		not_ok "$name" "$what: want exit 0, rows matching '$extra', one debuginfod line with '$words'" \
			"exit $RC, $n debuginfod lines" "$(show "$TMP/$tag.err")" "$(show "$TMP/$tag.out" 12)"
	fi
}

# Without DEBUGINFOD_URLS: the stripped binary's samples are addresses, nothing is fetched.
report off - -i "$TMP/hot.data"
if [ "$RC" -eq 0 ] && ! grep -qE 'hot_leaf|warm_helper' "$TMP/off.out" &&
	grep -qE '\[\.\] 0x' "$TMP/off.out" && [ ! -e "$DEBUGINFOD_CACHE_PATH/$ID" ] &&
	! grep -qi debuginfod "$TMP/off.err"; then
	ok debuginfod-off
else
	not_ok debuginfod-off "without DEBUGINFOD_URLS: want addresses only, no fetch, no debuginfod message" \
		"exit $RC" "$(show "$TMP/off.out" 20)" "$(show "$TMP/off.err")"
fi

# With it: the names, and the file in the client cache, byte for byte the server's.
report on "$URL" -i "$TMP/hot.data"
if [ "$RC" -eq 0 ] && named "$TMP/on.out" && ! crashed "$TMP/on.err" "$RC"; then
	ok debuginfod-names
else
	not_ok debuginfod-names "DEBUGINFOD_URLS=$URL: want hot_leaf and warm_helper named" \
		"exit $RC" "$(show "$TMP/on.out" 20)" "$(show "$TMP/on.err")"
fi
if cmp -s "$DEBUGINFOD_CACHE_PATH/$ID/debuginfo" "$TMP/srv/hot"; then
	ok debuginfod-cache
else
	not_ok debuginfod-cache "want the server's file at \$DEBUGINFOD_CACHE_PATH/$ID/debuginfo" \
		"$(find "$DEBUGINFOD_CACHE_PATH" 2>&1 | head -10)"
fi
if grep -qi 'debuginfod' "$TMP/on.err"; then
	not_ok debuginfod-quiet "everything was found: want no debuginfod message" "$(show "$TMP/on.err")"
else
	ok debuginfod-quiet
fi

# On a terminal (script(1) gives one) the download shows its progress on
# stderr, then clears it; into a pipe (above) nothing.
if command -v script >/dev/null 2>&1; then
	DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$TMP/cache-tty" run_long tty 60 \
		script -qec "'$PCL' report --stdio -i '$TMP/hot.data' >/dev/null" /dev/null
	if [ "$RC" -eq 0 ] && grep -q "debuginfod: debuginfo of $TMP/bin/hot" "$TMP/tty.out" &&
		grep -q $'\033\\[K' "$TMP/tty.out"; then
		ok debuginfod-progress
	else
		not_ok debuginfod-progress "on a terminal: want the progress line, then cleared" \
			"exit $RC" "$(od -c "$TMP/tty.out" | head -10)"
	fi
else
	skip debuginfod-progress "no script(1) to give pcl a terminal"
fi

# perf, with the same debug file on local disk (a symfs with it by build id), names the same.
mkdir -p "$TMP/root$TMP/bin" "$TMP/root/usr/lib/debug/.build-id/${ID:0:2}"
cp "$TMP/bin/hot" "$TMP/root$TMP/bin/hot"
cp "$TMP/srv/hot" "$TMP/root/usr/lib/debug/.build-id/${ID:0:2}/${ID:2}.debug"
if have_perf; then
	report pcl-dso "$URL" --dsos hot -i "$TMP/hot.data"
	run_long perf-dso 60 perf report --stdio --no-children --dsos hot --symfs "$TMP/root" -i "$TMP/hot.data"
	grep -v '^#' "$TMP/pcl-dso.out" | grep . >"$TMP/pcl-dso.rows"
	grep -v '^#' "$TMP/perf-dso.out" | grep . >"$TMP/perf-dso.rows"
	if [ -s "$TMP/perf-dso.rows" ]; then
		diff_or_ok debuginfod-perf "$TMP/perf-dso.rows" "$TMP/pcl-dso.rows" \
			"perf (local debug file)" "pcl (debuginfod)"
	else
		not_ok debuginfod-perf "oracle: perf report gave no rows" "$(show "$TMP/perf-dso.err")"
	fi
else
	skip debuginfod-perf "perf is not installed"
fi

# Source lines, through the same file: as perf's with the local one.
report srcline "$URL" --sort srcline --dsos hot -i "$TMP/hot.data"
if grep -q "unknown sort key 'srcline'" "$TMP/srcline.err"; then
	skip debuginfod-srcline "this pcl has no srcline sort key yet (test-debuginfod checks lines through the downloaded file)"
elif ! have_perf; then
	skip debuginfod-srcline "perf is not installed"
else
	run_long perf-srcline 60 perf report --stdio --no-children --sort srcline --dsos hot \
		--symfs "$TMP/root" -i "$TMP/hot.data"
	grep -v '^#' "$TMP/srcline.out" | grep . >"$TMP/pcl-srcline.rows"
	grep -v '^#' "$TMP/perf-srcline.out" | grep . >"$TMP/perf-srcline.rows"
	if grep -q 'hot\.c:[0-9]' "$TMP/perf-srcline.rows"; then
		diff_or_ok debuginfod-srcline "$TMP/perf-srcline.rows" "$TMP/pcl-srcline.rows" \
			"perf (local debug file)" "pcl (debuginfod)"
	else
		not_ok debuginfod-srcline "oracle: perf gave no hot.c lines" "$(show "$TMP/perf-srcline.rows")"
	fi
fi

# A build no server has: said once, with its name; the names of what was found still there.
report miss "$URL" -i "$TMP/other.data"
warned_once debuginfod-not-found miss "a build no server has" "no server in \$DEBUGINFOD_URLS has the debuginfo of $TMP/bin/other"

# The recorded file is gone: the executable comes from the server too.
mv "$TMP/bin/hot" "$TMP/hot.moved"
report gone "$URL" -i "$TMP/hot.data"
if [ "$RC" -eq 0 ] && named "$TMP/gone.out" && [ -s "$DEBUGINFOD_CACHE_PATH/$ID/executable" ]; then
	ok debuginfod-executable
else
	not_ok debuginfod-executable "file gone: want the names, and the executable in the cache" \
		"exit $RC" "$(show "$TMP/gone.out" 20)" "$(show "$TMP/gone.err")" \
		"$(find "$DEBUGINFOD_CACHE_PATH" 2>&1 | head -10)"
fi
mv "$TMP/hot.moved" "$TMP/bin/hot"

# A libdebuginfod that cannot serve (here: a stand-in with none of its
# functions, found first through LD_LIBRARY_PATH): the variable is set, so
# the user hears once why nothing was fetched; the report still comes.
mkdir -p "$TMP/fakelib"
if echo 'int not_libdebuginfod;' | cc -shared -fPIC -x c - -o "$TMP/fakelib/libdebuginfod.so.1" 2>/dev/null; then
	LD_LIBRARY_PATH="$TMP/fakelib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" report nolib "$URL" -i "$TMP/other.data"
	warned_once debuginfod-no-library nolib "a libdebuginfod without its functions" "libdebuginfod.so.1"
else
	skip debuginfod-no-library "cannot build a stand-in shared library"
fi

# CFI: nocfi's only CFI is .debug_frame, which its stripped build lacks.
# middle_share REPORT: the Children share of middle (hot_leaf's caller, on
# about 80% of the stacks), 0 when it is no entry: more than 50 only when
# the stacks were unwound through hot_leaf.
middle_share() {
	awk '/\[\.\] middle$/ { v = $1; sub(/%/, "", v); print int(v); found = 1; exit }
		END { if (!found) print 0 }' "$1"
}
# deep_share SCRIPT DSO: the percentage of samples with 2 or more frames in
# DSO: the unwinding itself, whether or not the frames have names.
deep_share() {
	awk -v dso="($2)" '
		function done() { if (seen) { n++; if (k >= 2) deep++ } }
		/^[^ \t]/ { done(); seen = 1; k = 0; next }
		/^[ \t]/ { if (substr($0, length($0) - length(dso) + 1) == dso) k++ }
		END { done(); print n ? int(100 * deep / n) : 0 }' "$1"
}
# The control: on the unstripped build (its .debug_frame on disk), pcl
# report must unwind; if it does not, it does not unwind dwarf samples yet.
if "$PCL" record -q -N -e cpu-clock --call-graph dwarf -o "$TMP/cfi-full.data" -- "$TMP/srv/nocfi" 300 \
	>/dev/null 2>"$TMP/rec.err" &&
	"$PCL" record -q -N -e cpu-clock --call-graph dwarf -o "$TMP/cfi.data" -- "$TMP/bin/nocfi" 300 \
		>/dev/null 2>>"$TMP/rec.err"; then
	run_long cfi-full 60 "$PCL" report --stdio --children -i "$TMP/cfi-full.data"
	if [ "$(middle_share "$TMP/cfi-full.out")" -le 50 ]; then
		skip debuginfod-cfi "pcl report does not unwind --call-graph dwarf samples yet (middle is not hot_leaf's caller on the unstripped build)"
	else
		DEBUGINFOD_URLS="$URL" run_long cfi-on 60 "$PCL" report --stdio --children -i "$TMP/cfi.data"
		DEBUGINFOD_URLS="$URL" run_long cfi-on-script 60 "$PCL" script -i "$TMP/cfi.data"
		run_long cfi-off-script 60 "$PCL" script -i "$TMP/cfi.data"
		on=$(middle_share "$TMP/cfi-on.out")
		deep_on=$(deep_share "$TMP/cfi-on-script.out" "$TMP/bin/nocfi")
		deep_off=$(deep_share "$TMP/cfi-off-script.out" "$TMP/bin/nocfi")
		if [ "$on" -gt 50 ] && [ "$deep_on" -gt 50 ] && [ "$deep_off" -lt 5 ]; then
			ok debuginfod-cfi
		else
			not_ok debuginfod-cfi "stripped, .debug_frame only on the server: want stacks unwound with DEBUGINFOD_URLS only" \
				"with: middle's children ${on}% (want > 50), ${deep_on}% of samples 2+ frames deep (want > 50)" \
				"without: ${deep_off}% of samples 2+ frames deep (want < 5)" \
				"$(show "$TMP/cfi-on.out" 20)" "$(show "$TMP/cfi-on.err")"
		fi
	fi
else
	not_ok debuginfod-cfi-record "pcl record --call-graph dwarf failed" "$(show "$TMP/rec.err")"
fi

# The server gone: what was fetched is read from the cache; a build not yet
# fetched fails once, fast, with a warning, and the report still comes.
stop_server
report cached "$URL" -i "$TMP/hot.data"
if [ "$RC" -eq 0 ] && named "$TMP/cached.out"; then
	ok debuginfod-cache-offline
else
	not_ok debuginfod-cache-offline "server stopped: want the names from the client cache" \
		"exit $RC" "$(show "$TMP/cached.out" 20)" "$(show "$TMP/cached.err")"
fi
rm -rf "$DEBUGINFOD_CACHE_PATH"
start=$(date +%s)
DEBUGINFOD_TIMEOUT=5 report dead "$URL" -i "$TMP/hot.data"
secs=$(($(date +%s) - start))
warned_once debuginfod-dead-server dead "server stopped, empty cache" "no more look-ups"
if [ "$secs" -lt 30 ]; then
	ok debuginfod-dead-server-fast
else
	not_ok debuginfod-dead-server-fast "a refused connection took ${secs}s (want < 30)"
fi
