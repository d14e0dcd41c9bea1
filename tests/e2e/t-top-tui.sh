#!/bin/bash
# pcl top on a terminal: the live histogram in the browser (cli/tui.c),
# driven in a detached tmux session: the title and rows come and refresh,
# Enter opens an entry's callers (-g), 'a' annotates, 'z' toggles zeroing (the title says
# [z]), 'q' quits with status 0, and the terminal is given back. With two
# events, TAB and shift-TAB switch the histogram shown (the browser), and
# so does 'E' in the --stdio listing, as perf top's.
. "$(dirname "$0")/lib.sh"

if ! has_cmd top; then
	skip top-tui "this pcl has no top command"
	exit 0
fi
if ! command -v tmux >/dev/null 2>&1; then
	skip top-tui "tmux is not installed (scripts/deps.sh installs it)"
	exit 0
fi
HOT=$(workload_fp hot 2>/dev/null || workload hot)
"$HOT" 60000 &
WPID=$!
SOCK=pcl-top-tui-$$
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	kill "$WPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

tm new-session -d -x 160 -y 40 -s t \
	"env TERM=xterm-256color $PCL top -e cpu-clock -d 1 -g -p $WPID 2>$TMP/tui.err; echo \$? >$TMP/exit; exec sleep 300"
tm set-option -t t status off >/dev/null
screen() { tm capture-pane -p -t t | sed 's/[[:space:]]*$//'; }
wait_for() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		screen | grep -qE "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tm send-keys -t t "$@"; sleep 0.4; }

if ! wait_for "^[-+ ] +[0-9.]+% +[0-9.]+% +$(basename "$HOT") +\[\.\] hot_leaf" 20; then
	not_ok top-tui-rows "no hot_leaf row within 20 s" "$(screen | head -12)" "$(head -5 "$TMP/tui.err")"
	exit 0
fi
t1=$(screen | head -1)
if [[ "$t1" =~ ^Samples:\ .*\ of\ event\ \'cpu-clock\',\ 4000\ Hz,\ Event\ count\ \(approx.\):\ [0-9]+\ lost:\ [0-9]+/[0-9]+\ drop:\ 0/0$ ]] &&
	screen | sed -n 2p | grep -qE '^ +Children +Self +Shared Object +Symbol$'; then
	ok top-tui-rows
else
	not_ok top-tui-rows "title or column titles not perf top's:" "$(screen | head -3)"
fi
sleep 2.2
t2=$(screen | head -1)
if [ "$t1" != "$t2" ]; then
	ok top-tui-refresh
else
	not_ok top-tui-refresh "the title did not change in 2 s at -d 1: $t2"
fi
# only hot_leaf's row (entries of equal weight swap places between refreshes), open it
keys / h o t _ l e a f Enter
keys Home
keys Enter
if wait_for '^ +\|--[0-9.]+%--.*main' 3 || screen | grep -qE -- '--[0-9.]+%--(__libc_start_call_main|main)'; then
	ok top-tui-callers
else
	not_ok top-tui-callers "Enter on hot_leaf showed no callers:" "$(screen | head -20)"
fi
# 'a': the function's instructions with their share of the last interval's samples
keys Home
keys a
if wait_for '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' 4 && screen | grep -q 'Percent'; then
	ok top-tui-annotate
else
	not_ok top-tui-annotate "no annotation of hot_leaf after 'a':" "$(screen | head -12)"
fi
keys q
keys z
if wait_for '^Samples: .* \[z\]' 4; then
	ok top-tui-zero-key
else
	not_ok top-tui-zero-key "no [z] in the title after 'z'" "$(screen | head -2)"
fi
keys q
for ((i = 0; i < 50; i++)); do [ -s "$TMP/exit" ] && break; sleep 0.1; done
if [ "$(cat "$TMP/exit" 2>/dev/null)" = 0 ] && ! crashed "$TMP/tui.err" 0; then
	ok top-tui-quit
else
	not_ok top-tui-quit "exit '$(cat "$TMP/exit" 2>/dev/null)' (want 0)" "$(head -20 "$TMP/tui.err")"
fi

# Two events: cpu-clock (mostly the kernel here) and page-faults (the user
# code that faults, do_faults): each its own histogram, one shown.
KT=$(workload kernel-time) || { not_ok top-tui-events "cannot build tests/workloads/kernel-time.c"; exit 0; }
"$KT" 60000 &
KPID=$!
cleanup() {
	tm kill-server 2>/dev/null
	kill "$WPID" "$KPID" 2>/dev/null
	rm -rf "$TMP"
}
rm -f "$TMP/exit"
tm new-session -d -x 160 -y 40 -s e \
	"env TERM=xterm-256color $PCL top -e cpu-clock,page-faults -d 1 -p $KPID 2>$TMP/ev1.err; echo \$? >$TMP/exit; exec sleep 300"
tm set-option -t e status off >/dev/null
screen() { tm capture-pane -p -t e | sed 's/[[:space:]]*$//'; }
keys() { tm send-keys -t e "$@"; sleep 0.4; }
if ! wait_for "^Samples: .* of event 'cpu-clock'" 20; then
	not_ok top-tui-events "no cpu-clock title within 20 s" "$(screen | head -5)" "$(head -5 "$TMP/ev1.err")"
else
	keys Tab
	if wait_for "^Samples: .* of event 'page-faults'" 4 && wait_for '\[\.\] do_faults$' 4; then
		ok top-tui-events-tab
	else
		not_ok top-tui-events-tab "TAB: want page-faults' histogram (do_faults):" "$(screen | head -8)"
	fi
	keys BTab
	if wait_for "^Samples: .* of event 'cpu-clock'" 4; then
		ok top-tui-events-btab
	else
		not_ok top-tui-events-btab "shift-TAB: want cpu-clock's histogram again:" "$(screen | head -4)"
	fi
fi
keys q
tm kill-session -t e 2>/dev/null

# the listing's 'E': the events by number, then the one to show
tm new-session -d -x 160 -y 40 -s e \
	"env TERM=xterm-256color $PCL top --stdio -e cpu-clock,page-faults -d 1 -p $KPID 2>$TMP/ev2.err; exec sleep 300"
tm set-option -t e status off >/dev/null
if ! wait_for '^ +PerfTop: .*\[cpu-clock\]' 20; then
	not_ok top-stdio-events "no [cpu-clock] header within 20 s" "$(screen | head -5)" "$(head -5 "$TMP/ev2.err")"
else
	keys E
	# (the list on stderr, as perf's)
	if wait_for 'Enter details event counter' 4 && grep -qE '^\s+1 page-faults$' "$TMP/ev2.err"; then
		keys 1 Enter
		if wait_for '^ +PerfTop: .*\[page-faults\]' 4 && wait_for '\[\.\] do_faults' 4; then
			ok top-stdio-events
		else
			not_ok top-stdio-events "after E 1: want the page-faults listing (do_faults):" "$(screen | head -10)"
		fi
	else
		not_ok top-stdio-events "E: want the events listed by number and a prompt:" "$(screen | tail -8)" "$(show "$TMP/ev2.err")"
	fi
fi
keys q
sleep 1
for f in ev1 ev2; do
	if crashed "$TMP/$f.err" 0; then
		not_ok top-tui-events-$f-clean "pcl top with two events reported an error:" "$(head -10 "$TMP/$f.err")"
	else
		ok top-tui-events-$f-clean
	fi
done
