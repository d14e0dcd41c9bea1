#!/usr/bin/env bash
# The flame graph SVG and the HTML page of `pcl report --format=...` in a
# real browser: Debian's Chromium driven by playwright-core
# (tests/browser/check-page.js). Pages, from pcl recordings (-g -F 2000) of
# tests/workloads/hot and of tests/workloads/threads (2 threads):
#   flamegraph     --format=flamegraph of hot
#   icicle         --format=flamegraph --icicle of hot
#   html           --format=html of hot
#   html-threads   --format=html of threads
# Checks, one line each, browser-PAGE-CHECK: export (pcl wrote the page),
# no-console-errors (no console error or warning, no uncaught exception),
# no-network (no request but the page's own file), hottest-on-page (hot_leaf,
# or burn_tK, has a frame; on html also the first row of #functions),
# click-zooms (a click on its frame makes it as wide as the root, ±1 px),
# screenshot-saved; svg pages also orientation (root below hot_leaf, or
# above in the icicle), hover-details, reset-zoom; html pages also
# page-ready, callers and callees (hot_leaf's caller as the folded export of
# the same file says), annotate (html: a click on hot_leaf shows its source
# and assembly, sampled rows coloured, jump targets marked), table-sort, and on html-threads thread-select (picking
# wl-thread-1 redraws #functions with burn_t1 on top).
# Screenshots (and the pages) stay in $BUILD/test-artifacts/export-PAGE.png
# for a person to look at. The sanitizer build (BUILD ending in /san) only
# writes the pages; Chromium runs once per make check, with the plain build.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BROWSER_DIR=$ROOT/tests/browser
CHROMIUM=${PCL_CHROMIUM:-/usr/bin/chromium}
ART=$BUILD/test-artifacts
PAGES="flamegraph icicle html html-threads"
SVG_CHECKS="export no-console-errors no-network hottest-on-page click-zooms screenshot-saved orientation hover-details reset-zoom"
HTML_CHECKS="export no-console-errors no-network hottest-on-page click-zooms screenshot-saved page-ready table-sort"

checks_of() { # PAGE: the check names for PAGE
	case "$1" in
	flamegraph | icicle) echo "$SVG_CHECKS" ;;
	html) echo "$HTML_CHECKS callers callees annotate" ;;
	html-threads) echo "$HTML_CHECKS thread-select" ;;
	esac
}
skip_all() { # REASON [FIRST_CHECK_TO_SKIP]: skip every check of every page
	local p c
	for p in $PAGES; do
		for c in $(checks_of "$p"); do
			[ "$c" = export ] && [ -n "${2:-}" ] && continue
			skip "browser-$p-$c" "$1"
		done
	done
}

if ! has_cmd record || ! has_cmd report; then
	skip_all "this pcl has no record or report command"
	exit 0
fi

# --- recordings ---------------------------------------------------------------
# hot with exact call chains if clang is there (lib.sh, workload_fp); the
# expected caller of hot_leaf comes from the folded export either way.
hot=$(workload_fp hot 2>/dev/null) || hot=$(workload hot) || {
	not_ok browser-workload "cannot build tests/workloads/hot.c"
	exit 0
}
threads=$(workload threads) || {
	not_ok browser-workload "cannot build tests/workloads/threads.c"
	exit 0
}
have_hot=1
record_to browser pcl hot -g -F 2000 -o "$TMP/hot.data" -- "$hot" 400 || have_hot=0
record_to browser pcl threads -g -F 2000 -o "$TMP/threads.data" -- "$threads" 2 300

# --- exports ------------------------------------------------------------------
mkdir -p "$ART"
declare -A page_file page_ok
export_page() { # PAGE DATA FORMAT EXT [ARGS...]
	local pg=$1 data=$2 fmt=$3 ext=$4 out
	shift 4
	out=$TMP/export-$pg.$ext
	page_file[$pg]=$out
	page_ok[$pg]=0
	if [ ! -s "$data" ]; then
		skip "browser-$pg-export" "no recording to export (see browser-$(basename "$data" .data) above)"
		return
	fi
	run_long "exp-$pg" 60 "$PCL" report -i "$data" --format="$fmt" -o "$out" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/exp-$pg.err" "$RC" || [ ! -s "$out" ]; then
		not_ok "browser-$pg-export" "pcl report -i ${data##*/} --format=$fmt${*:+ $*}: exit $RC (want 0)," \
			"output $( (wc -c <"$out") 2>/dev/null || echo 0) bytes (want > 0)" "$(show "$TMP/exp-$pg.err")"
		return
	fi
	ok "browser-$pg-export"
	page_ok[$pg]=1
	cp "$out" "$ART/export-$pg.$ext"
}
export_page flamegraph "$TMP/hot.data" flamegraph svg
export_page icicle "$TMP/hot.data" flamegraph svg --icicle
export_page html "$TMP/hot.data" html html
export_page html-threads "$TMP/threads.data" html html

# --- the browser ----------------------------------------------------------------
why=
case "$BUILD" in
*/san) why="browser checks run with the plain build" ;;
esac
if [ -z "$why" ] && ! command -v node >/dev/null 2>&1; then
	why="node is not installed (scripts/deps.sh installs it)"
fi
if [ -z "$why" ]; then
	nodemajor=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
	[ "${nodemajor:-0}" -ge 18 ] 2>/dev/null || why="node ${nodemajor:-?} is too old for playwright-core (18 or newer)"
fi
if [ -z "$why" ] && [ ! -x "$CHROMIUM" ]; then
	why="no Chromium at $CHROMIUM (scripts/deps.sh installs Debian's chromium)"
fi
if [ -z "$why" ] && [ ! -f "$BROWSER_DIR/node_modules/playwright-core/package.json" ]; then
	why="tests/browser/node_modules/playwright-core is missing (scripts/npm-deps.sh fetches it)"
fi
case "$BUILD" in
*/san)
	# one line, not one per check: nothing is missing, the plain build runs them
	skip browser "$why"
	exit 0
	;;
esac
if [ -n "$why" ]; then
	skip_all "$why" keep-export
	exit 0
fi

# caller_of DATA FUNC: FUNC's caller on the heaviest stack of the folded export.
caller_of() {
	"$PCL" report -i "$1" --format=folded 2>/dev/null | awk -v f="$2" '
		{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, fr, ";")
		  if (k >= 2 && fr[k] == f && n + 0 > best) { best = n + 0; c = fr[k - 1] } }
		END { if (c != "") print c }'
}
hot_caller=
[ "$have_hot" = 1 ] && hot_caller=$(caller_of "$TMP/hot.data" hot_leaf)

# browse PAGE MODE ARGS...: run check-page.js on PAGE, print its checks.
browse() {
	local pg=$1 mode=$2 c
	shift 2
	local shot=$ART/export-$pg.png json=$TMP/browse-$pg.json
	if [ "${page_ok[$pg]}" != 1 ]; then
		for c in $(checks_of "$pg"); do
			[ "$c" = export ] || skip "browser-$pg-$c" "no page to open (see browser-$pg-export)"
		done
		return
	fi
	rm -f "$shot"
	timeout -k 5 90 node "$BROWSER_DIR/check-page.js" --mode "$mode" --page "${page_file[$pg]}" \
		--screenshot "$shot" --chromium "$CHROMIUM" "$@" >"$json" 2>"$TMP/browse-$pg.err"
	local rc=$?
	# One "NAME<TAB>ok|fail<TAB>detail" line per check the script reports,
	# then "-<TAB>error<TAB>why" if it could not finish.
	node -e '
		const fs = require("fs");
		let j;
		try { j = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch (e) { j = { error: "no JSON result" }; }
		for (const c of j.checks || [])
			console.log([c.name, c.ok ? "ok" : "fail", String(c.detail).replace(/[\t\n]/g, " ")].join("\t"));
		if (j.error) console.log(["-", "error", String(j.error).replace(/[\t\n]/g, " ")].join("\t"));
	' "$json" >"$TMP/browse-$pg.tsv"
	local err
	err=$(awk -F'\t' '$1 == "-" { print $3 }' "$TMP/browse-$pg.tsv")
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && err="check-page.js did not finish within 90 s. $err"
	[ -n "$err" ] || [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || err="check-page.js exit $rc"
	local name st detail seen=" "
	while IFS=$'\t' read -r name st detail; do
		[ "$name" = - ] && continue
		seen+="$name "
		if [ "$st" = ok ]; then
			ok "browser-$pg-$name"
		else
			not_ok "browser-$pg-$name" "$detail" "page kept as $ART/export-$pg.${page_file[$pg]##*.}"
		fi
	done <"$TMP/browse-$pg.tsv"
	for c in $(checks_of "$pg"); do
		[ "$c" = export ] && continue
		case "$seen" in *" $c "*) continue ;; esac
		if { [ "$c" = callers ] || [ "$c" = callees ]; } && [ -z "$hot_caller" ]; then
			skip "browser-$pg-$c" "the folded export shows no caller of hot_leaf"
			continue
		fi
		if [ -n "$err" ]; then
			not_ok "browser-$pg-$c" "not checked: $err"
		else
			not_ok "browser-$pg-$c" "not checked: check-page.js (exit $rc) did not report it" "$(show "$TMP/browse-$pg.err" 5)"
		fi
	done
}

browse flamegraph svg --hot hot_leaf --orient up
browse icicle svg --hot hot_leaf --orient down
browse html html --hot hot_leaf --annotate yes ${hot_caller:+--caller "$hot_caller"}
browse html-threads html --hot 'burn_t0|burn_t1' --thread wl-thread-1=burn_t1
