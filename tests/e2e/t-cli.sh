#!/usr/bin/env bash
# The pcl command line: --version, help, per-command usage, unknown commands.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok cli-pcl-built "no executable at $PCL"
	exit 0
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
version=$(sed -nE 's/^VERSION *:?= *([^ ]+).*/\1/p' "$root/Makefile" | head -1)

# --- version ----------------------------------------------------------------
for v in --version version; do
	case $v in --*) vn=cli-version-option ;; *) vn=cli-version-command ;; esac
	run ver "$PCL" $v
	out=$(cat "$TMP/ver.out" "$TMP/ver.err")
	if [ $RC -eq 0 ] && grep -qE "(^|[^0-9.])${version//./\\.}([^0-9.]|$)" <<<"$out" && [ "$(grep -c . <<<"$out")" -eq 1 ]; then
		ok $vn
	else
		not_ok $vn "pcl $v: exit $RC; want 0 and one line with the version '$version' (Makefile):" "$out"
	fi
done

# --- help: usage on stdout, exit 0 -------------------------------------------
# usage_ok NAME WORDS -- ARGS...: exit 0, usage on stdout, mentioning WORDS.
usage_ok() {
	local name=$1 words=() w miss=""
	shift
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	run usage "$PCL" "$@"
	for w in "${words[@]}"; do grep -qe "$w" "$TMP/usage.out" || miss="$miss '$w'"; done
	if [ $RC -eq 0 ] && grep -qi 'usage' "$TMP/usage.out" && [ -z "$miss" ] && ! crashed "$TMP/usage.err" 0; then
		ok "$name"
	else
		not_ok "$name" "pcl $*: exit $RC; want 0 and a usage on stdout naming:${miss:- (all there)}" \
			"stdout:" "$(show "$TMP/usage.out")" "stderr:" "$(show "$TMP/usage.err" 5)"
	fi
}
usage_ok cli-help stat list -- help
usage_ok cli-help-option stat list -- --help
usage_ok cli-help-h stat list -- -h
# pcl stat's usage names every option perf stat users reach for.
stat_opts=(--event --repeat --interval-print --field-separator --json --output --per-thread --no-aggr
	--per-core --per-socket --big-num --null --pid --tid --all-cpus --cpu --cgroup --no-inherit)
usage_ok cli-help-stat "${stat_opts[@]}" -- help stat
usage_ok cli-stat-h "${stat_opts[@]}" -- stat -h
usage_ok cli-stat-help "${stat_opts[@]}" -- stat --help
usage_ok cli-help-list --json -- help list
usage_ok cli-list-h --json -- list -h

# Short options too, as perf spells them.
run usage "$PCL" stat -h
miss=""
for o in -e -r -I -x -j -o -A -B -n -p -t -a -C -G -i; do
	grep -qE -- "(^|[ ,])$o([ ,]|$)" "$TMP/usage.out" || miss="$miss $o"
done
if [ -z "$miss" ]; then ok cli-stat-short-options; else
	not_ok cli-stat-short-options "pcl stat -h does not show the short options:$miss" "$(show "$TMP/usage.out" 40)"
fi

# --- wrong commands ------------------------------------------------------------
run bad "$PCL" nosuchcmd
if crashed "$TMP/bad.err" $RC; then
	not_ok cli-unknown-command "pcl nosuchcmd: exit $RC; a status >= 128 or sanitizer output counts as a crash:" \
		"$(show "$TMP/bad.err")"
elif [ $RC -ne 0 ] && [ "$(grep -c . "$TMP/bad.err")" -eq 1 ] && grep -q "^pcl: .*nosuchcmd" "$TMP/bad.err"; then
	ok cli-unknown-command
else
	not_ok cli-unknown-command "pcl nosuchcmd: exit $RC; want non-zero and one line 'pcl: ...nosuchcmd...' on stderr:" \
		"$(show "$TMP/bad.err")"
fi
run none "$PCL"
if crashed "$TMP/none.err" $RC; then
	not_ok cli-no-command "pcl with no arguments: exit $RC (sanitizer output or >= 128):" "$(show "$TMP/none.err")"
elif grep -qi usage "$TMP/none.out" "$TMP/none.err"; then
	ok cli-no-command
else
	not_ok cli-no-command "pcl with no arguments: exit $RC; want a usage:" "$(show "$TMP/none.out")" "$(show "$TMP/none.err")"
fi
run helpbad "$PCL" help nosuchcmd
if crashed "$TMP/helpbad.err" $RC || [ $RC -eq 0 ]; then
	not_ok cli-help-unknown "pcl help nosuchcmd: exit $RC; want non-zero (1..127), no crash:" "$(show "$TMP/helpbad.err")"
else
	ok cli-help-unknown
fi
# pcl report and pcl script: a bad command line exits 2, a file that is not
# perf.data exits 1, each with one 'pcl: ...' line naming the problem.
for c in "report --sort bogus:2:sort key 'bogus'" "report -g bogus:2:call-graph option 'bogus'" \
	"report -i /etc/passwd:1:not a perf.data" "script -i /etc/passwd:1:not a perf.data" \
	"report -i $TMP/none.data:1:cannot open" "script --bogus:2:bogus"; do
	args=${c%%:*} rest=${c#*:} want=${rest%%:*} text=${rest#*:}
	# shellcheck disable=SC2086
	run rs "$PCL" $args
	if [ $RC -eq "$want" ] && [ "$(wc -l <"$TMP/rs.err")" -eq 1 ] && grep -q "^pcl: .*$text" "$TMP/rs.err"; then
		ok "cli-${args%% *}-error-$want-$(echo "$text" | tr -c 'a-z\n' _)"
	else
		not_ok "cli-${args%% *}-error-$want-$(echo "$text" | tr -c 'a-z\n' _)" \
			"pcl $args: exit $RC; want $want and one line 'pcl: ...$text...':" "$(show "$TMP/rs.err")"
	fi
done
exit 0
