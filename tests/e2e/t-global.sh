#!/usr/bin/env bash
# pcl's own options and command names, as a perf or git user types them:
# "did you mean" for a mistyped command, global options before the command
# (which must not change how the command reads its own arguments), and
# --list-cmds agreeing with 'pcl help'.
. "$(dirname "$0")/lib.sh"

# --- did you mean ---------------------------------------------------------------------------
for typo in repor:report scirpt:script anotate:annotate lsit:list sta:stat; do
	t=${typo%%:*} want=${typo#*:}
	run typo "$PCL" "$t"
	if [ "$RC" = 2 ] && [ "$(grep -c . "$TMP/typo.err")" = 1 ] &&
		grep -q "^pcl: '$t' is not a pcl command; did you mean '$want'?\$" "$TMP/typo.err" && [ ! -s "$TMP/typo.out" ]; then
		ok "global-did-you-mean-$t"
	else
		not_ok "global-did-you-mean-$t" "pcl $t: want exit 2 and one line naming '$t' and suggesting '$want'; exit $RC:" \
			"$(show "$TMP/typo.err")" "$(show "$TMP/typo.out")"
	fi
done
# nothing close: no suggestion, still an error
run far "$PCL" xyzzyq
if [ "$RC" = 2 ] && grep -q "'xyzzyq' is not a pcl command" "$TMP/far.err" && ! grep -q 'did you mean' "$TMP/far.err"; then
	ok global-no-suggestion
else
	not_ok global-no-suggestion "pcl xyzzyq: want exit 2, an error and no suggestion; exit $RC:" "$(show "$TMP/far.err")"
fi

# --- global options -----------------------------------------------------------------------------
# a global option before the command leaves the command's parsing as it was:
# diff takes options after its file names (getopt's permutation)
run plain "$PCL" diff "$TMP/none1" "$TMP/none2" -q
run glob "$PCL" --no-pager diff "$TMP/none1" "$TMP/none2" -q
if [ "$RC" != 0 ] && cmp -s "$TMP/plain.err" "$TMP/glob.err" && grep -q 'none1' "$TMP/glob.err"; then
	ok global-then-command-options
else
	not_ok global-then-command-options "pcl --no-pager diff A B -q: want the same error as pcl diff A B -q (exit $RC):" \
		"$(show "$TMP/glob.err")" "without --no-pager:" "$(show "$TMP/plain.err")"
fi
run badg "$PCL" --no-such-global list
if [ "$RC" = 2 ] && grep -q -- "--no-such-global" "$TMP/badg.err"; then ok global-unknown-option; else
	not_ok global-unknown-option "pcl --no-such-global list: want exit 2 naming the option; exit $RC:" "$(show "$TMP/badg.err")"
fi
run ver "$PCL" --no-pager --version
if [ "$RC" = 0 ] && [ "$(cat "$TMP/ver.out")" = "$("$PCL" version)" ]; then ok global-version; else
	not_ok global-version "pcl --no-pager --version: exit $RC:" "$(show "$TMP/ver.out")"
fi
run hr "$PCL" --help report
if [ "$RC" = 0 ] && [ -s "$TMP/hr.out" ] && cmp -s "$TMP/hr.out" <("$PCL" help report 2>/dev/null); then
	ok global-help-command
else
	not_ok global-help-command "pcl --help report: want what pcl help report shows; exit $RC:" "$(show "$TMP/hr.out" 3)"
fi

# --- --list-cmds -----------------------------------------------------------------------------------
run lc "$PCL" --list-cmds
listed=$(tr ' ' '\n' <"$TMP/lc.out" | grep . | sort)
helped=$("$PCL" help | awk '/^   [a-z]/ { print $1 }' | sort)
if [ "$RC" = 0 ] && [ "$(wc -l <"$TMP/lc.out")" = 1 ] && [ "$listed" = "$helped" ]; then ok global-list-cmds; else
	not_ok global-list-cmds "pcl --list-cmds: want one line with the commands 'pcl help' lists; exit $RC:" \
		"list-cmds: $(echo $listed)" "help:      $(echo $helped)"
fi
