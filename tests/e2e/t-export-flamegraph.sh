#!/usr/bin/env bash
# pcl report --format=flamegraph: the SVG flame graph of a recording of the
# hot workload (main -> ... -> hot_leaf about 80%, main -> warm_helper about
# 20%), recorded by pcl and by perf. Checks: xmllint parses it; hot_leaf and
# warm_helper have frames; hot_leaf's frames span 55-95% of the root's
# width; nothing outside the file is referenced (no URL but the SVG
# namespace, no href/src to one); the same document on stdout and in -o's
# file; --icicle puts the root at the top (the default at the bottom) and
# keeps the frames; a bad -o directory fails with one line and leaves no
# file. Differential graphs are tested in tests/unit/test-flamegraph.c.
. "$(dirname "$0")/lib.sh"

if ! has_cmd report; then
	skip export-flamegraph "this pcl has no report command"
	exit 0
fi
hot=$(workload hot) || { not_ok export-flamegraph-workload "cannot build tests/workloads/hot.c"; exit 0; }

# export TAG DATA ARGS...: pcl report -i DATA --format=flamegraph ARGS as TAG.
export_svg() {
	local tag=$1 data=$2
	shift 2
	run_long "$tag" 60 "$PCL" report -i "$data" --format=flamegraph "$@"
}
# attr_of NAME ATTR FILE: ATTR of the rect of each frame of function NAME, one a line.
attr_of() {
	grep -F "<g class=\"frame\" data-name=\"$1\">" "$3" |
		sed -n "s/.*<rect [^>]* $2=\"\\([0-9.]*\\)\".*/\\1/p"
}
# width_share NAME FILE: the summed width of NAME's frames over the root's, in percent.
width_share() {
	local w root
	w=$(attr_of "$1" width "$2" | awk '{ s += $1 } END { print s + 0 }')
	root=$(attr_of all width "$2" | head -1)
	awk -v w="$w" -v r="${root:-0}" 'BEGIN { if (r > 0) printf "%.1f\n", 100 * w / r; else print -1 }'
}
# urls FILE: every URL in FILE that is not an XML namespace declaration.
urls() {
	grep -oE 'https?://[^"'"'"' <>)]*' "$1" |
		grep -vxE 'http://www\.w3\.org/(2000/svg|1999/xlink)'
	grep -oiE '(href|src)[[:space:]]*=[[:space:]]*["'"'"'][a-z]+:[^"'"'"']*' "$1"
}

# check_svg ID SVG ERRFILE RC: the checks of one exported document.
check_svg() {
	local id=$1 svg=$2 err=$3 rc=$4 share bad
	if [ "$rc" -ne 0 ] || crashed "$err" "$rc" || [ ! -s "$svg" ]; then
		not_ok "export-flamegraph-$id" "exit $rc (want 0), $(wc -c <"$svg" 2>/dev/null || echo 0) bytes" \
			"$(show "$err")"
		return 1
	fi
	ok "export-flamegraph-$id"
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$svg" 2>"$TMP/xmllint.err"; then
			ok "export-flamegraph-$id-xml"
		else
			not_ok "export-flamegraph-$id-xml" "xmllint --noout:" "$(show "$TMP/xmllint.err")"
		fi
	else
		skip "export-flamegraph-$id-xml" "xmllint is not installed (libxml2-utils)"
	fi
	if grep -qF '<g class="frame" data-name="hot_leaf">' "$svg" &&
		grep -qF '<g class="frame" data-name="warm_helper">' "$svg"; then
		ok "export-flamegraph-$id-frames"
	else
		not_ok "export-flamegraph-$id-frames" "want frames of hot_leaf and warm_helper; frames found:" \
			"$(grep -o 'data-name="[^"]*"' "$svg" | sort | uniq -c | head -20)"
	fi
	share=$(width_share hot_leaf "$svg")
	if awk -v s="$share" 'BEGIN { exit !(s >= 55 && s <= 95) }'; then
		ok "export-flamegraph-$id-width"
	else
		not_ok "export-flamegraph-$id-width" "hot_leaf spans $share% of the root's width (want 55-95%)" \
			"hot_leaf widths: $(attr_of hot_leaf width "$svg" | tr '\n' ' ')" \
			"root width: $(attr_of all width "$svg" | tr '\n' ' ')"
	fi
	bad=$(urls "$svg" | sort -u | head -5)
	if [ -z "$bad" ] && grep -q '<script' "$svg" && grep -q '<style' "$svg"; then
		ok "export-flamegraph-$id-self-contained"
	else
		not_ok "export-flamegraph-$id-self-contained" \
			"want no reference outside the file and inline <script> and <style>; found:" "$bad" \
			"<script>: $(grep -c '<script' "$svg"), <style>: $(grep -c '<style' "$svg")"
	fi
}

# --- recorded by pcl ------------------------------------------------------------------
if record_to export-flamegraph pcl pcl -g -F 2000 -o "$TMP/pcl.data" -- "$hot" 400; then
	export_svg pcl "$TMP/pcl.data" -o "$TMP/pcl.svg"
	check_svg pcl "$TMP/pcl.svg" "$TMP/pcl.err" "$RC"

	# stdout and -o: the same document, and no temporary file left next to it
	export_svg stdout "$TMP/pcl.data"
	left=$(find "$TMP" -maxdepth 1 -name 'pcl.svg.*')
	if [ "$RC" -eq 0 ] && cmp -s "$TMP/stdout.out" "$TMP/pcl.svg" && [ -z "$left" ]; then
		ok export-flamegraph-stdout
	else
		not_ok export-flamegraph-stdout "exit $RC; stdout $(wc -c <"$TMP/stdout.out") bytes," \
			"-o file $(wc -c <"$TMP/pcl.svg") bytes (want the same document); left behind: $left"
	fi

	# --icicle: root at the top, hot_leaf below it; by default the other way round
	export_svg icicle "$TMP/pcl.data" --icicle -o "$TMP/icicle.svg"
	fy=$(attr_of all y "$TMP/pcl.svg" | head -1)
	fl=$(attr_of hot_leaf y "$TMP/pcl.svg" | head -1)
	iy=$(attr_of all y "$TMP/icicle.svg" | head -1)
	il=$(attr_of hot_leaf y "$TMP/icicle.svg" | head -1)
	nf=$(grep -c '<g class="frame"' "$TMP/pcl.svg")
	ni=$(grep -c '<g class="frame"' "$TMP/icicle.svg" 2>/dev/null)
	if [ "$RC" -eq 0 ] && [ -n "$fy" ] && [ -n "$fl" ] && [ -n "$iy" ] && [ -n "$il" ] &&
		awk -v fy="$fy" -v fl="$fl" -v iy="$iy" -v il="$il" \
			'BEGIN { exit !(fy > fl && iy < il && iy < fy) }' && [ "$nf" = "$ni" ]; then
		ok export-flamegraph-icicle
	else
		not_ok export-flamegraph-icicle "exit $RC (want 0)" \
			"flame: root y=$fy hot_leaf y=$fl (want root below), $nf frames" \
			"icicle: root y=$iy hot_leaf y=$il (want root above, and above flame's), ${ni:-0} frames" \
			"$(show "$TMP/icicle.err")"
	fi

	# a bad -o: one line on stderr, a failure, nothing written
	: >"$TMP/notadir"
	export_svg bad-o "$TMP/pcl.data" -o "$TMP/notadir/out.svg"
	left=$(find "$TMP" -maxdepth 1 -name 'notadir*' ! -name notadir)
	lines=$(wc -l <"$TMP/bad-o.err")
	if [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] && ! crashed "$TMP/bad-o.err" "$RC" && [ "$lines" -eq 1 ] &&
		[ ! -s "$TMP/bad-o.out" ] && [ ! -s "$TMP/notadir" ] && [ -z "$left" ]; then
		ok export-flamegraph-bad-output
	else
		not_ok export-flamegraph-bad-output "exit $RC (want 1), $lines stderr lines (want 1):" \
			"$(show "$TMP/bad-o.err")" "stdout $(wc -c <"$TMP/bad-o.out") bytes (want 0); left: $left"
	fi
fi

# --- recorded by perf -----------------------------------------------------------------
if ! have_perf; then
	skip export-flamegraph-perf "perf is not installed"
elif record_to export-flamegraph perf perf --no-bpf-event -g -F 2000 -o "$TMP/perf.data" -- "$hot" 400; then
	export_svg perf "$TMP/perf.data" -o "$TMP/perf.svg"
	check_svg perf "$TMP/perf.svg" "$TMP/perf.err" "$RC"
fi
