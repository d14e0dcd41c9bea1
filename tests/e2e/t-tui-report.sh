#!/usr/bin/env bash
# pcl report's browser (cli/tui.c, docs/tui.md), driven in a detached tmux
# session of 200x50 (TERM=xterm-256color): keys sent with send-keys, the
# screen read with capture-pane and checked against what the file holds.
#   tui-entries       the entry rows are the lines of pcl report --stdio on
#                     the same file (columns, widths, order), from column 1
#   tui-entries-perf  on a file perf recorded, the rows' (children, self,
#                     comm, dso, symbol) of 1% and more are perf report
#                     --stdio's
#   tui-title         the title line is perf's: "Samples: N of event 'E',
#                     Event count (approx.): P" with --stdio's numbers
#   tui-expand        '+' on hot_leaf shows the call-graph lines --stdio -g
#                     prints under it; 'C' folds them again
#   tui-fold          '+' on a branch row of an open chain folds what is under
#                     it (its sign turns '+'), '+' again gives the same screen
#   tui-search        '/' warm: exactly the rows whose symbol holds "warm"
#   tui-zoom-dso      'd' on hot_leaf: only the DSO "hot" rows (all of
#                     --stdio's), the title says "DSO: hot"; ESC zooms out
#                     (its column elided, as perf does)
#   tui-zoom-thread   't': the title says "Thread: hot", the rows are that
#                     thread's
#   tui-zoom-pid      with -s pid,dso,sym, 't': "Thread: hot(TID)", the rows
#                     --stdio's of that pid, the pid column elided
#   tui-annotate      'a' on hot_leaf: pcl annotate --stdio hot_leaf's lines
#   tui-annotate-caller  'a' on outer (no sample of its own): the bottom
#                     line says there is nothing to annotate
#   tui-quit          q: exit status 0, the browser gone from the screen
#   tui-info          'i' shows what --header-only prints
#   tui-help          '?' lists the keys, q goes back to the list
#   tui-resize        a smaller window redraws at its width
#   tui-stdio         --stdio and --no-tui on a terminal print the text report
#   tui-events        a file of two events: TAB goes to the second's
#                     histogram (title and rows as --stdio's section of it)
#   tui-pipe          `pcl report | cat` and `pcl report --tui | cat` print
#                     --stdio's text, as perf report --tui into a pipe does
#   tui-no-samples    a file without samples: exit 0, and stderr says so
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip tui "tmux is not installed (scripts/deps.sh installs it)"
	exit 0
fi
if ! has_record; then
	skip tui "this pcl has no record command"
	exit 0
fi
HOT=$(workload hot) || { not_ok tui-workload "cannot build the hot workload"; exit 0; }
# its comm and DSO: "hot" from the build's workloads, "wl-hot" when built here
WL=$(basename "$HOT")
F=$TMP/hot.data
record_to tui pcl hot -N -g -o "$F" -- "$HOT" 400 || exit 0

# one tmux server per session started, on sockets of this test's own
SOCK=pcl-tui-$$ NS=0
tm() { tmux -L "$SOCK-$NS" -f /dev/null "$@"; }
cleanup() {
	for ((i = 0; i <= NS; i++)); do tmux -L "$SOCK-$i" kill-server 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# start ARGS...: pcl report ARGS in a fresh 200x50 session; its exit status
# goes to $TMP/exit, its stderr to $TMP/tui.err; the shell stays to be looked at.
start() {
	tm kill-server 2>/dev/null
	NS=$((NS + 1))
	rm -f "$TMP/exit"
	local cmd="cd $TMP && env TERM=xterm-256color PAGER=cat $PCL report $*"
	tm new-session -d -x 200 -y 50 -s t "$cmd 2>$TMP/tui.err; echo \$? >$TMP/exit; exec sleep 300"
	tm set-option -t t status off >/dev/null
}
screen() { tm capture-pane -p -t t | sed 's/[[:space:]]*$//'; }
# wait_for REGEX [SECS]: until the screen has a line matching REGEX
wait_for() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		screen | grep -qE "$1" && return 0
		sleep 0.1
	done
	return 1
}
# keys KEY...: send them, then wait until the screen stays the same for 0.5 s
# (a loaded machine may take a while; at most 10 s)
keys() {
	local prev= cur i same=0
	tm send-keys -t t "$@"
	sleep 0.2
	for ((i = 0; i < 100 && same < 5; i++)); do
		cur=$(tm capture-pane -p -t t)
		if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
		prev=$cur
		sleep 0.1
	done
}
# The entry rows on screen, from column 1 (the fold sign dropped).
rows() { screen | sed -n '3,$p' | grep -E '^[-+ ] +[0-9]+\.[0-9]+%' | cut -c2-; }
# --stdio's entry lines, from column 1 too
stdio_rows() { grep -E '^ +[0-9]+\.[0-9]+%' "$1" | cut -c2-200 | sed 's/[[:space:]]*$//'; }

"$PCL" report -i "$F" --stdio >"$TMP/stdio.txt" 2>/dev/null

start -i "$F"
if ! wait_for '^Samples: '; then
	not_ok tui-start "no browser within 20 s" "$(screen | head -5)" "$(head -5 "$TMP/tui.err")"
	exit 0
fi

# --- the rows and the title ------------------------------------------------
rows >"$TMP/rows.txt"
n=$(wc -l <"$TMP/rows.txt")
stdio_rows "$TMP/stdio.txt" | head -"$n" >"$TMP/want.txt"
if [ "$n" -ge 10 ] && diff -u "$TMP/want.txt" "$TMP/rows.txt" >"$TMP/d" 2>&1; then
	ok tui-entries
else
	not_ok tui-entries "$n rows; the screen against --stdio's entry lines:" "$(head -20 "$TMP/d")"
fi
samples=$(sed -n "s/^# Samples: \(.*\) of event '\(.*\)'$/\1 of event '\2'/p" "$TMP/stdio.txt")
count=$(sed -n 's/^# Event count (approx.): //p' "$TMP/stdio.txt")
want="Samples: $samples, Event count (approx.): $count"
got=$(screen | head -1)
if [ -n "$samples" ] && [ "$got" = "$want" ]; then
	ok tui-title
else
	not_ok tui-title "got:  '$got'" "want: '$want'"
fi

# --- '/' search --------------------------------------------------------------
keys / w a r m Enter
rows | awk '{ print $NF }' >"$TMP/search.txt"
stdio_rows "$TMP/stdio.txt" | awk '$NF ~ /warm/ { print $NF }' >"$TMP/want-search.txt"
if [ -s "$TMP/search.txt" ] && diff -u "$TMP/want-search.txt" "$TMP/search.txt" >"$TMP/d" &&
	screen | head -1 | grep -q 'Symbol filter: warm'; then
	ok tui-search
else
	not_ok tui-search "rows after / warm:" "$(head -10 "$TMP/d")" "$(screen | head -5)"
fi
keys Escape

# --- expand: hot_leaf's call graph, as --stdio prints it -----------------
keys / h o t _ l e a f Enter
keys +
# the lines after hot_leaf's entry line up to the blank line, from column 1
awk 'f && /^[[:space:]]*$/ { exit } f { print } / \[\.\] hot_leaf$/ && !f { f = 1 }' \
	"$TMP/stdio.txt" | cut -c2-200 | sed 's/[[:space:]]*$//' >"$TMP/want-chain.txt"
screen | sed '$d' | awk 'f && /^[-+ ] +[0-9]+\.[0-9]+%/ { exit } f { print } /\[\.\] hot_leaf$/ { f = 1 }' |
	cut -c2- | grep -v '^$' >"$TMP/chain.txt"
grep -v '^$' "$TMP/want-chain.txt" >"$TMP/want-chain2.txt"
if [ -s "$TMP/chain.txt" ] && grep -q -- '--.*hot_leaf\|hot_leaf' "$TMP/chain.txt" &&
	diff -u "$TMP/want-chain2.txt" "$TMP/chain.txt" >"$TMP/d" &&
	screen | grep -q '^- .*hot_leaf$'; then
	folded=$(keys C; screen | grep -c '^[-+ ] \{11\}')
	if [ "$folded" -eq 0 ]; then ok tui-expand; else not_ok tui-expand "C left $folded chain lines"; fi
else
	not_ok tui-expand "hot_leaf's chain against --stdio's:" "$(head -20 "$TMP/d")" "$(screen | head -20)"
fi

# --- fold one branch of a chain: perf's '+' on a chain row --------------------
keys Escape Home +
screen >"$TMP/open.txt"
# the first chain row with a '-' sign (a branch with something under it), below the entry
L=$(grep -nE '^- {11}' "$TMP/open.txt" | awk -F: '$1 > 3 { print $1; exit }')
if [ -n "$L" ]; then
	for ((i = 3; i < L; i++)); do keys Down; done
	keys +
	screen >"$TMP/folded.txt"
	keys +
	screen >"$TMP/unfolded.txt"
	name=$(sed -n "${L}p" "$TMP/open.txt" | cut -c2-)
	if sed -n "${L}p" "$TMP/folded.txt" | grep -qF -- "+$name" &&
		[ "$(grep -c '^[-+ ] \{11\}' "$TMP/folded.txt")" -lt "$(grep -c '^[-+ ] \{11\}' "$TMP/open.txt")" ] &&
		cmp -s "$TMP/open.txt" "$TMP/unfolded.txt"; then
		ok tui-fold
	else
		not_ok tui-fold "+ on row $L ($name): folded, then unfolded again:" "$(head -14 "$TMP/folded.txt")" "$(diff "$TMP/open.txt" "$TMP/unfolded.txt" | head -5)"
	fi
else
	not_ok tui-fold "no branch to fold under the first entry" "$(head -14 "$TMP/open.txt")"
fi
keys C Home / h o t _ l e a f Enter

# --- annotate ---------------------------------------------------------------
keys a
wait_for '^Annotate hot_leaf' 10
"$PCL" annotate -i "$F" --stdio hot_leaf 2>/dev/null | expand | cut -c1-200 |
	sed 's/[[:space:]]*$//' | head -40 >"$TMP/want-ann.txt"
screen | sed -n '2,41p' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$TMP/ann.txt"
if screen | head -1 | grep -q '^Annotate hot_leaf' && [ -s "$TMP/want-ann.txt" ] &&
	diff -u "$TMP/want-ann.txt" "$TMP/ann.txt" >"$TMP/d"; then
	ok tui-annotate
else
	not_ok tui-annotate "the annotation against pcl annotate --stdio hot_leaf:" "$(head -20 "$TMP/d")"
fi
keys q # back to the list
# outer has (almost always) no sample of its own, its children's only:
# nothing to annotate, said so. Which it is comes from --stdio's Self column.
keys Escape / o u t e r Enter a
outer_self=$(awk '$NF == "outer" && $1 ~ /%$/ { print $2; exit }' "$TMP/stdio.txt")
if [ "$outer_self" = "0.00%" ]; then
	wait_for 'nothing to annotate' 10 # a loaded machine may leave the screen still for a while
	if screen | tail -1 | grep -q 'nothing to annotate: no sample in outer itself'; then
		ok tui-annotate-caller
	else
		not_ok tui-annotate-caller "a on outer (self 0%):" "$(screen | tail -1)"
	fi
else
	# a sample landed in outer's own loop this time: its annotation opens
	if wait_for '^Annotate outer' 10; then
		ok "tui-annotate-caller (outer has self $outer_self: annotated)"
	else
		not_ok tui-annotate-caller "a on outer (self $outer_self):" "$(screen | head -3)"
	fi
	keys q
fi
keys Escape / h o t _ l e a f Enter

# --- zoom into the DSO and the thread ----------------------------------------
# without field N: the words of each line, single-spaced
drop() { awk -v n="$1" '{ s = ""; for (i = 1; i <= NF; i++) if (i != n) s = s (s == "" ? "" : " ") $i; print s }'; }
keys d Escape # zoom into hot_leaf's DSO, then drop the search
wait_for ", DSO: $WL\$" 10
rows | drop 0 >"$TMP/zrows.txt"
stdio_rows "$TMP/stdio.txt" | awk -v wl="$WL" '$4 == wl' | drop 4 | head -"$(wc -l <"$TMP/zrows.txt")" >"$TMP/zwant.txt"
hdr=$(screen | sed -n 2p)
# perf elides the DSO column while zoomed into one
if [ -s "$TMP/zwant.txt" ] && diff -u "$TMP/zwant.txt" "$TMP/zrows.txt" >"$TMP/d" &&
	screen | head -1 | grep -q ", DSO: $WL\$" && [[ $hdr != *"Shared Object"* ]]; then
	keys Escape
	if screen | head -1 | grep -q 'DSO:' || ! screen | sed -n 2p | grep -q 'Shared Object'; then
		not_ok tui-zoom-dso "ESC did not zoom out: $(screen | head -2)"
	else
		ok tui-zoom-dso
	fi
else
	not_ok tui-zoom-dso "rows zoomed into DSO hot (its column elided) against --stdio's:" \
		"$hdr" "$(head -10 "$TMP/d")"
fi
keys t
title=$(screen | head -1)
if [[ $title == *", Thread: $WL" ]] && [ "$(rows | awk '{ print $3 }' | sort -u)" = "$WL" ]; then
	ok tui-zoom-thread
else
	not_ok tui-zoom-thread "title: $title"
fi
keys t
# --- header information --------------------------------------------------------
keys i
wait_for '^Header information' 10
"$PCL" report -i "$F" --header-only 2>/dev/null | cut -c1-200 | sed 's/[[:space:]]*$//' | head -20 >"$TMP/want-info.txt"
screen | sed -n '2,21p' >"$TMP/info.txt"
if screen | head -1 | grep -q '^Header information' && [ -s "$TMP/want-info.txt" ] &&
	diff -u "$TMP/want-info.txt" "$TMP/info.txt" >"$TMP/d"; then
	ok tui-info
else
	not_ok tui-info "i against --header-only:" "$(head -10 "$TMP/d")"
fi
keys q

# --- help ---------------------------------------------------------------------
keys '?'
if screen | grep -q '^E  *Expand all call chains' && keys q && screen | head -1 | grep -q '^Samples: '; then
	ok tui-help
else
	not_ok tui-help "? did not show the keys, or q did not come back" "$(screen | head -5)"
fi

# --- resize, quit --------------------------------------------------------------
tm resize-window -t t -x 100 -y 30 2>/dev/null
sleep 0.5
screen >"$TMP/resized.txt"
w=$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if head -1 "$TMP/resized.txt" | grep -q '^Samples: ' && [ "$w" -le 100 ] &&
	sed -n 30p "$TMP/resized.txt" | grep -q "^Press '?'"; then
	ok tui-resize
else
	not_ok tui-resize "at 100x30: widest line $w, $(rows | wc -l) rows" "$(head -30 "$TMP/resized.txt")"
fi
keys q
for ((i = 0; i < 50; i++)); do [ -s "$TMP/exit" ] && break; sleep 0.1; done
st=$(cat "$TMP/exit" 2>/dev/null)
if [ "$st" = 0 ] && ! crashed "$TMP/tui.err" 0 && ! screen | grep -qE '^Samples: |Press .\?. for help'; then
	ok tui-quit
else
	not_ok tui-quit "exit status '$st' (want 0)" "$(screen | head -5)" "$(head -5 "$TMP/tui.err")"
fi

# --- thread zoom by pid: the title names the tid, the pid column goes -----------
start -i "$F" -s pid,dso,sym
if wait_for '^Samples: '; then
	"$PCL" report -i "$F" --stdio -s pid,dso,sym >"$TMP/stdio-pid.txt" 2>/dev/null
	keys t
	title=$(screen | head -1)
	tid=$(sed -n "s/.*, Thread: $WL(\([0-9]*\))\$/\1/p" <<<"$title")
	rows | drop 0 >"$TMP/trows.txt"
	# (as many as the screen holds)
	stdio_rows "$TMP/stdio-pid.txt" | awk -v t="$tid:$WL" '$3 == t' | drop 3 |
		head -"$(wc -l <"$TMP/trows.txt")" >"$TMP/twant.txt"
	if [ -n "$tid" ] && [ -s "$TMP/twant.txt" ] && diff -u "$TMP/twant.txt" "$TMP/trows.txt" >"$TMP/d"; then
		ok tui-zoom-pid
	else
		not_ok tui-zoom-pid "title: $title" "$(head -10 "$TMP/d")"
	fi
	keys q
else
	not_ok tui-zoom-pid "no browser with -s pid,dso,sym" "$(screen | head -5)"
fi

# --- the text interfaces ---------------------------------------------------------
for opt in --stdio --no-tui; do
	start -i "$F" "$opt" --percent-limit 5 -g none
	for ((i = 0; i < 100; i++)); do [ -s "$TMP/exit" ] && break; sleep 0.1; done
	if [ "$(cat "$TMP/exit" 2>/dev/null)" = 0 ] && screen | grep -q '^# Samples: '; then
		ok "tui-stdio$opt"
	else
		not_ok "tui-stdio$opt" "$opt on a terminal: not the text report" "$(screen | head -5)"
	fi
done
"$PCL" report -i "$F" 2>/dev/null | cat >"$TMP/pipe.txt"
"$PCL" report -i "$F" --tui 2>/dev/null | cat >"$TMP/pipe-tui.txt"
if cmp -s "$TMP/pipe.txt" "$TMP/stdio.txt" && cmp -s "$TMP/pipe-tui.txt" "$TMP/stdio.txt"; then
	ok tui-pipe
else
	not_ok tui-pipe "pcl report | cat, --tui | cat: not --stdio's text" "$(diff "$TMP/stdio.txt" "$TMP/pipe-tui.txt" | head -5)"
fi
if have_perf; then
	perf report -i "$F" --tui 2>/dev/null | head -1 >"$TMP/perf-tui.txt"
	if grep -q '^# ' "$TMP/perf-tui.txt"; then ok tui-pipe-perf; else not_ok tui-pipe-perf "perf report --tui | cat: $(cat "$TMP/perf-tui.txt")"; fi
fi

# --- a file perf recorded: the rows are perf report --stdio's ---------------------
if have_perf && record_to tui perf perf-hot -g -o "$TMP/perf-hot.data" -- "$HOT" 400; then
	start -i "$TMP/perf-hot.data"
	if wait_for '^Samples: '; then
		# (children, self, comm, dso, symbol) of the rows of 1% and more
		rows | awk '$1 + 0 >= 1 { $1 = $1; print }' | sort >"$TMP/prows.txt"
		perf report -i "$TMP/perf-hot.data" --stdio 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' |
			awk '$1 + 0 >= 1 { $1 = $1; print }' | sort >"$TMP/pwant.txt"
		if [ -s "$TMP/pwant.txt" ] && diff -u "$TMP/pwant.txt" "$TMP/prows.txt" >"$TMP/d"; then
			ok tui-entries-perf
		else
			not_ok tui-entries-perf "rows of 1%+ against perf report --stdio's:" "$(head -20 "$TMP/d")"
		fi
	else
		not_ok tui-entries-perf "no browser on perf's file" "$(screen | head -5)"
	fi
	keys q
fi

# --- two events: TAB -----------------------------------------------------------
if record_to tui pcl two -N -e cpu-clock -e task-clock -o "$TMP/two.data" -- "$HOT" 300; then
	"$PCL" report -i "$TMP/two.data" --stdio >"$TMP/two.txt" 2>/dev/null
	# the second section's title and entry lines
	awk '/^# Samples: /{ n++ } n == 2' "$TMP/two.txt" >"$TMP/two-2.txt"
	start -i "$TMP/two.data"
	if wait_for '^Samples: .*cpu-clock'; then
		keys Tab
		samples=$(sed -n "s/^# Samples: \(.*\) of event '\(.*\)'$/\1 of event '\2'/p" "$TMP/two-2.txt")
		rows >"$TMP/two-rows.txt"
		stdio_rows "$TMP/two-2.txt" | head -"$(wc -l <"$TMP/two-rows.txt")" >"$TMP/two-want.txt"
		if screen | head -1 | grep -qF "Samples: $samples," && [ -s "$TMP/two-rows.txt" ] &&
			diff -u "$TMP/two-want.txt" "$TMP/two-rows.txt" >"$TMP/d"; then
			ok tui-events
		else
			not_ok tui-events "after TAB, want the task-clock section ($samples)" "$(screen | head -3)" "$(head -10 "$TMP/d")"
		fi
	else
		not_ok tui-events "no browser on a two-event file" "$(screen | head -5)"
	fi
	keys q
fi

# --- a file without samples: said on stderr (perf's browser says so too) ----
if "$PCL" record -N -q -e sched:sched_process_fork -o "$TMP/none.data" -- true >/dev/null 2>&1; then
	start -i "$TMP/none.data"
	for ((i = 0; i < 100; i++)); do [ -s "$TMP/exit" ] && break; sleep 0.1; done
	if [ "$(cat "$TMP/exit" 2>/dev/null)" = 0 ] && grep -q 'has no samples' "$TMP/tui.err"; then
		ok tui-no-samples
	else
		not_ok tui-no-samples "exit '$(cat "$TMP/exit" 2>/dev/null)', stderr:" "$(show "$TMP/tui.err")"
	fi
else
	skip tui-no-samples "cannot record sched:sched_process_fork"
fi
