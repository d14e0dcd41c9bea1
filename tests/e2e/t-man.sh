#!/usr/bin/env bash
# The man pages (docs/man/*.scd): one for pcl and for every command, built
# by scdoc and groff without a warning, naming every option of the command's
# -h text and of its option table (so the two cannot drift apart); and
# 'pcl help CMD' / 'pcl CMD --help' showing them when installed (beside pcl
# or on MANPATH), the usage otherwise, while -h always prints the usage.
. "$(dirname "$0")/lib.sh"

root="$(cd "$(dirname "$0")/../.." && pwd)"
src=$root/docs/man
mapfile -t cmds < <("$PCL" --list-cmds | tr ' ' '\n' | grep .)
if [ ${#cmds[@]} -lt 5 ]; then
	not_ok man-commands "pcl --list-cmds gives ${#cmds[@]} commands:" "$("$PCL" --list-cmds 2>&1 | head -3)"
	exit 0
fi

# --- a page for each command -----------------------------------------------------
miss=""
for c in pcl "${cmds[@]/#/pcl-}"; do
	[ -s "$src/$c.1.scd" ] || miss="$miss $c"
done
if [ -z "$miss" ]; then ok man-every-command; else
	not_ok man-every-command "commands of 'pcl --list-cmds' without docs/man/NAME.1.scd:$miss"
fi

# --- they build without warnings -------------------------------------------------
if ! command -v scdoc >/dev/null 2>&1; then
	skip man-build "scdoc is not installed (scripts/deps.sh)"
else
	bad=()
	for f in "$src"/*.scd; do
		p=$TMP/$(basename "$f" .scd)
		if ! scdoc <"$f" >"$p" 2>"$p.err" || [ -s "$p.err" ]; then
			bad+=("scdoc $(basename "$f"): $(head -3 "$p.err")")
		elif command -v groff >/dev/null 2>&1; then
			groff -man -Tutf8 -ww -z "$p" 2>"$p.err"
			[ -s "$p.err" ] && bad+=("groff $(basename "$p"): $(head -3 "$p.err")")
		fi
		# NAME line: "pcl-CMD - what it does", as man -k and whatis read it
		grep -qE "^$(basename "$p" .1) .?- " "$p" || bad+=("$(basename "$p"): no 'NAME - description' line")
	done
	if [ ${#bad[@]} -eq 0 ]; then ok man-build; else not_ok man-build "${bad[@]}"; fi
	# make built the same pages into BUILD/man
	miss=""
	for f in "$src"/*.scd; do
		b=$(basename "$f" .scd)
		cmp -s "$BUILD/man/$b" "$TMP/$b" || miss="$miss $b"
	done
	if [ -z "$miss" ]; then ok man-built-by-make; else
		not_ok man-built-by-make "pages missing or stale in $BUILD/man (make builds them):$miss"
	fi
fi

# --- every option of -h and of the option table is in the page -------------------------
# opts_of_usage: the long options anywhere in the text, the short ones in the
# option lines (those that start with blanks and a dash)
opts_of_usage() {
	grep -oE -- '(^|[^a-zA-Z0-9-])--[a-z0-9][a-z0-9-]*' "$1" | sed -E 's/^[^-]+//; s/^-?(--)/\1/'
	grep -E '^[[:space:]]+-' "$1" | sed -E 's/^[[:space:]]+//; s/   .*//' |
		grep -oE -- '(^|[ ,/[(])-[A-Za-z0-9]([ ,]|$)' | grep -oE -- '-[A-Za-z0-9]'
}
in_page() { # PAGE OPTION
	grep -qE -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|\$)" "$1"
}
bad=()
for c in "${cmds[@]}"; do
	page=$src/pcl-$c.1.scd
	[ -s "$page" ] || continue
	"$PCL" "$c" -h >"$TMP/h.out" 2>/dev/null
	"$PCL" "$c" --list-opts 2>/dev/null | tr ' ' '\n' | grep -E '^--' >"$TMP/t.out"
	miss=""
	while read -r o; do
		[ "$o" = --list-opts ] && continue
		in_page "$page" "$o" || miss="$miss $o"
	done < <(opts_of_usage "$TMP/h.out" | sort -u; sort -u "$TMP/t.out")
	miss=$(tr ' ' '\n' <<<"$miss" | sort -u | tr '\n' ' ')
	[ -n "${miss// /}" ] && bad+=("pcl-$c.1.scd lacks:$miss")
done
"$PCL" -h >"$TMP/h.out" 2>/dev/null
"$PCL" --list-opts >"$TMP/t.out" 2>/dev/null
miss=""
for o in $(opts_of_usage "$TMP/h.out" | sort -u) $(cat "$TMP/t.out"); do
	in_page "$src/pcl.1.scd" "$o" || miss="$miss $o"
done
[ -n "$miss" ] && bad+=("pcl.1.scd lacks:$miss")
if [ ${#bad[@]} -eq 0 ]; then ok man-options; else
	not_ok man-options "options of 'pcl CMD -h' or 'pcl CMD --list-opts' missing from the man page:" "${bad[@]}"
fi

# --- pcl help CMD, pcl CMD --help ---------------------------------------------------------
if ! command -v man >/dev/null 2>&1 || ! command -v scdoc >/dev/null 2>&1; then
	skip man-help "man or scdoc is not installed"
	exit 0
fi
# an installation: PREFIX/bin/pcl and PREFIX/share/man/man1
mkdir -p "$TMP/prefix/bin" "$TMP/prefix/share/man/man1" "$TMP/mp/man1" "$TMP/empty"
cp "$PCL" "$TMP/prefix/bin/pcl"
cp "$TMP"/*.1 "$TMP/prefix/share/man/man1/"
cp "$TMP"/*.1 "$TMP/mp/man1/"
export MANPAGER=cat PAGER=cat MANWIDTH=80
# man_shown TAG: the output is pcl-report(1) formatted by man
man_shown() { grep -q 'pcl-report - histograms' "$TMP/$1.out" && ! grep -q '^usage:' "$TMP/$1.out"; }
usage_shown() { grep -q '^usage: pcl report' "$TMP/$1.out"; }

for how in "help report" "report --help"; do
	# shellcheck disable=SC2086
	MANPATH=$TMP/empty run inst "$TMP/prefix/bin/pcl" $how
	if [ $RC = 0 ] && man_shown inst; then ok "man-installed-${how// /-}"; else
		not_ok "man-installed-${how// /-}" "PREFIX/bin/pcl $how with PREFIX/share/man/man1/pcl-report.1: want the man page; exit $RC:" \
			"$(show "$TMP/inst.out" 5)" "$(show "$TMP/inst.err" 5)"
	fi
	# shellcheck disable=SC2086
	MANPATH=$TMP/mp run mp "$PCL" $how
	if [ $RC = 0 ] && man_shown mp; then ok "man-manpath-${how// /-}"; else
		not_ok "man-manpath-${how// /-}" "MANPATH=DIR pcl $how with DIR/man1/pcl-report.1: want the man page; exit $RC:" \
			"$(show "$TMP/mp.out" 5)" "$(show "$TMP/mp.err" 5)"
	fi
	# shellcheck disable=SC2086
	MANPATH=$TMP/empty run none "$PCL" $how
	if [ $RC = 0 ] && usage_shown none; then ok "man-none-${how// /-}"; else
		not_ok "man-none-${how// /-}" "pcl $how with no page installed: want the usage text; exit $RC:" \
			"$(show "$TMP/none.out" 5)" "$(show "$TMP/none.err" 5)"
	fi
done
MANPATH=$TMP/mp run h "$TMP/prefix/bin/pcl" report -h
if [ $RC = 0 ] && usage_shown h; then ok man-h-is-usage; else
	not_ok man-h-is-usage "pcl report -h with the page installed: want the short usage, as perf's -h; exit $RC:" \
		"$(show "$TMP/h.out" 5)"
fi
