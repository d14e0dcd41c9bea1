#!/usr/bin/env bash
# pcl stat exit statuses and bad input: the command's status comes back,
# a command that cannot run gives 127, a signal N gives 128+N, and every
# bad option gives one "pcl: ..." line and a non-zero status, never a crash.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok stat-errors-pcl-built "no executable at $PCL"
	exit 0
fi

# --- exit status of the command -------------------------------------------
status_is() { # NAME WANT ARGS...
	local name=$1 want=$2
	shift 2
	run st "$PCL" stat -e task-clock "$@"
	if [ "$RC" -eq "$want" ] && ! crashed "$TMP/st.err" 0 && grep -q ' msec task-clock ' "$TMP/st.err"; then
		ok "$name"
	else
		not_ok "$name" "pcl stat -e task-clock $*: exit $RC, want $want, and the counts printed:" "$(show "$TMP/st.err")"
	fi
}
status_is stat-exit-status-0 0 -- true
status_is stat-exit-status-1 1 -- false
status_is stat-exit-status-3 3 -- sh -c 'exit 3'
# perf 6.1 exits 0 here (it prints "sh: Killed" and the counts); pcl returns
# 128+N like a shell, so scripts can tell.
status_is stat-exit-status-signal 137 -- sh -c 'kill -9 $$'
status_is stat-exit-status-sigterm 143 -- sh -c 'kill -TERM $$'

# --- a command that cannot be run: 127 and one line -----------------------
for cmd in /nonexistent/pcl-no-such-command pcl-no-such-command-in-path /etc/passwd; do
	run nx "$PCL" stat -e task-clock -- "$cmd"
	n=$(grep -c . "$TMP/nx.err")
	# Like a shell: 127 when not found, 126 when found but not executable.
	want=127
	[ "$cmd" = /etc/passwd ] && want="126 127"
	case " $want " in *" $RC "*) rcok=1 ;; *) rcok=0 ;; esac
	if [ $rcok = 1 ] && [ "$n" -eq 1 ] && grep -qF "$cmd" "$TMP/nx.err" && ! crashed "$TMP/nx.err" 0; then
		ok "stat-cannot-run-${cmd##*/}"
	else
		not_ok "stat-cannot-run-${cmd##*/}" "pcl stat -- $cmd: exit $RC (want $want), $n stderr lines (want 1 naming the command):" \
			"$(show "$TMP/nx.err")"
	fi
done

# --- bad input: one "pcl: " line, non-zero, no crash -----------------------
# A pid that does not exist: above every live one, below pid_max.
max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
nopid=$((max - 1))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done
bad_input() { # NAME ARGS... (for pcl stat)
	local name=$1
	shift
	run bad "$PCL" stat "$@"
	local n
	n=$(grep -c . "$TMP/bad.err")
	if crashed "$TMP/bad.err" "$RC"; then
		not_ok "$name" "pcl stat $*: exit $RC; a status >= 128 or sanitizer output counts as a crash:" \
			"$(show "$TMP/bad.err" 25)"
	elif [ "$RC" -ne 0 ] && [ "$n" -eq 1 ] && head -1 "$TMP/bad.err" | grep -q '^pcl: '; then
		ok "$name"
	else
		not_ok "$name" "pcl stat $*: exit $RC, $n stderr lines; want non-zero and one line 'pcl: ...':" \
			"$(show "$TMP/bad.err")"
	fi
}
bad_input stat-bad-event -e cyclez -- true
if grep -q "'cyclez'" "$TMP/bad.err" && grep -q "cycles" <(sed "s/cyclez//g" "$TMP/bad.err"); then
	ok stat-bad-event-suggests
else
	not_ok stat-bad-event-suggests "-e cyclez: want the message to quote 'cyclez' and suggest 'cycles':" "$(show "$TMP/bad.err")"
fi
bad_input stat-bad-event-in-list -e task-clock,nosuchevent123 -- true
bad_input stat-bad-tracepoint -e sched:no_such_tracepoint -- true
bad_input stat-bad-pid -p $nopid
bad_input stat-bad-pid-text -p abc
bad_input stat-bad-tid -t $nopid
bad_input stat-bad-cpu-99 -C 99 -- true
bad_input stat-bad-cpu-x -C x -- true
bad_input stat-bad-cpu-range -C 1-0 -- true
bad_input stat-bad-separator -x '' -- true
bad_input stat-bad-interval-abc -I abc -- true
bad_input stat-bad-interval-negative -I -5 -- true
bad_input stat-bad-repeat-0 -r 0 -- true
bad_input stat-bad-repeat-abc -r abc -- true
bad_input stat-bad-repeat-negative -r -2 -- true
bad_input stat-bad-option --no-such-option -- true
bad_input stat-bad-cgroup -a -G pcl-no-such-cgroup-e2e -- true
bad_input stat-bad-breakpoint -e mem:nothex:w -- true
bad_input stat-missing-event-arg -e
bad_input stat-bad-metric -M pcl_no_such_metric -- true
# an empty name in a -M list is a typo (perf 6.1 says "Cannot find metric or
# group `'" and counts its default events); pcl refuses it, naming the list
for m in '' , 'task-clock-metric-typo,,' ; do
	[ "$m" = task-clock-metric-typo,, ] && m="$("$PCL" list metrics 2>/dev/null | awk '/^  [a-z0-9_]+$/ { print $1; exit }'),,"
	[ "$m" = ",," ] && continue # no metrics for this CPU: the typo case has no name to hang on
	bad_input "stat-bad-metric-empty${m:+-$(printf %s "$m" | tr -c 'a-z0-9' x)}" -M "$m" -- true
	if ! grep -qF -- "-M '$m': empty metric name" "$TMP/bad.err"; then
		not_ok "stat-bad-metric-empty-message" "-M '$m': want \"empty metric name\" naming the list:" "$(show "$TMP/bad.err")"
	fi
done

# No command and no target: perf counts the whole system until Ctrl-C (or
# the end of --interval-count); so does pcl.
run nocmd timeout -s INT 5 "$PCL" stat -e cpu-clock -I 100 --interval-count 2
if crashed "$TMP/nocmd.err" "$RC" || [ "$RC" -ne 0 ] || [ "$(grep -c ' cpu-clock ' "$TMP/nocmd.err")" != 2 ]; then
	not_ok stat-no-command "pcl stat -I 100 --interval-count 2 (no target): exit $RC (want 0 and two intervals, system wide):" \
		"$(show "$TMP/nocmd.err")"
else
	ok stat-no-command
fi

# --- an event this machine cannot count: <not supported>, exit 0 -----------
run ns "$PCL" stat -e cycles,task-clock -- true
if [ "$RC" -eq 0 ] && grep -qE '^ +<not supported> +cycles ' "$TMP/ns.err" && grep -q ' msec task-clock ' "$TMP/ns.err"; then
	ok stat-not-supported
else
	not_ok stat-not-supported "pcl stat -e cycles,task-clock -- true: exit $RC; want 0 and a '<not supported>  cycles' row:" \
		"$(show "$TMP/ns.err")"
fi
run nsx "$PCL" stat -x, -e cycles,task-clock -- true
line=$(grep ',cycles,' "$TMP/nsx.err")
if [ "$RC" -eq 0 ] && [ "$(norm_words <<<"$line")" = "<not supported>,,cycles,N,N,," ]; then
	ok stat-not-supported-csv
else
	not_ok stat-not-supported-csv "pcl stat -x, -e cycles,task-clock: exit $RC; want perf's '<not supported>,,cycles,0,100.00,,'; got:" \
		"$(show "$TMP/nsx.err")"
fi
# Only unsupported events: perf still runs the command and prints the row.
run nso "$PCL" stat -e cycles -- true
if [ "$RC" -eq 0 ] && grep -qE '^ +<not supported> +cycles ' "$TMP/nso.err"; then
	ok stat-not-supported-only
else
	not_ok stat-not-supported-only "pcl stat -e cycles -- true: exit $RC; want 0 and a '<not supported>  cycles' row like perf:" \
		"$(show "$TMP/nso.err")"
fi

# --- counting opens carry no sample period ----------------------------------
# perf stat clears the period parsing gives tracepoints: the kernel refuses
# to sample irq_vectors:irq_work_exit (EPERM, as sampling raises irq_work),
# but counts it. A refusal that is not perf_event_paranoid's (root here) must
# not blame it.
IWX=irq_vectors:irq_work_exit
if [ "$(id -u)" -ne 0 ]; then
	skip stat-count-no-period "needs root (tracefs and a level that lets the event open)"
elif [ ! -d /sys/kernel/tracing/events/irq_vectors/irq_work_exit ] &&
	[ ! -d /sys/kernel/debug/tracing/events/irq_vectors/irq_work_exit ]; then
	skip stat-count-no-period "no $IWX tracepoint on this kernel"
else
	run iwx "$PCL" stat -x, -e $IWX -- true
	v=$(csv_count "$TMP/iwx.err" $IWX)
	if [ "$RC" -eq 0 ] && [[ $v =~ ^[0-9]+$ ]]; then
		ok stat-count-no-period
	else
		not_ok stat-count-no-period "pcl stat -e $IWX -- true: exit $RC, count '$v'; want 0 and a count, as perf stat:" \
			"$(show "$TMP/iwx.err")"
	fi
	if have_perf; then
		run iwxf perf stat -x, -e $IWX -- true
		f=$(csv_count "$TMP/iwxf.err" $IWX)
		if [[ $f =~ ^[0-9]+$ ]] && [[ $v =~ ^[0-9]+$ ]]; then
			ok stat-count-no-period-vs-perf
		else
			not_ok stat-count-no-period-vs-perf "$IWX: perf counts '$f', pcl '$v'" "$(show "$TMP/iwx.err")"
		fi
	fi
	if has_record; then
		run iwxr "$PCL" record -o "$TMP/iwx.data" -e $IWX -- true
		if [ "$RC" -ne 0 ] && grep -q "cannot open event '$IWX'" "$TMP/iwxr.err" &&
			grep -qi 'sample' "$TMP/iwxr.err" &&
			! grep -qE 'perf_event_paranoid (forbids|is [0-9-])' "$TMP/iwxr.err"; then
			ok stat-perm-error-not-paranoid
		else
			not_ok stat-perm-error-not-paranoid "as root, pcl record -e $IWX: exit $RC; want a failure that" \
				"says the tracepoint cannot be sampled, not that perf_event_paranoid forbids it:" \
				"$(show "$TMP/iwxr.err")"
		fi
	fi
fi
exit 0
