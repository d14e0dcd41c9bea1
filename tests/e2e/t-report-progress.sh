#!/usr/bin/env bash
# Reading a large file, pcl report and pcl script show a progress bar on a
# terminal, erase it when done, and never write it into a pipe or a file.
# PCL_PROGRESS_MIN=0 makes this small file count as large.
. "$(dirname "$0")/lib.sh"

has_record || { skip report-progress "this pcl has no record command"; exit 0; }
command -v script >/dev/null 2>&1 || { skip report-progress "no script(1) (util-linux) to give pcl a terminal"; exit 0; }
hot=$(workload hot) || { not_ok report-progress-workload "cannot build tests/workloads/hot.c"; exit 0; }
if ! "$PCL" record -q -o "$TMP/p.data" -- "$hot" 100 >/dev/null 2>"$TMP/rec.err"; then
	not_ok report-progress-record "pcl record failed" "$(cat "$TMP/rec.err")"
	exit 0
fi
for cmd in report script; do
	# stderr on a terminal (script's pty), stdout to a file
	PCL_PROGRESS_MIN=0 script -qec "'$PCL' $cmd -i '$TMP/p.data' > '$TMP/$cmd.out'" /dev/null \
		>"$TMP/$cmd.tty" 2>&1 </dev/null
	if grep -q "reading $TMP/p.data \[" "$TMP/$cmd.tty" && grep -q $'\033\[K' "$TMP/$cmd.tty" &&
		! grep -q 'reading' "$TMP/$cmd.out"; then
		ok "report-progress-$cmd-tty"
	else
		not_ok "report-progress-$cmd-tty" "want a 'reading FILE [...]' bar on the terminal, erased, and none in stdout:" \
			"$(od -c "$TMP/$cmd.tty" | head -5)"
	fi
	PCL_PROGRESS_MIN=0 "$PCL" $cmd -i "$TMP/p.data" >"$TMP/$cmd.out2" 2>"$TMP/$cmd.err2"
	if [ -s "$TMP/$cmd.err2" ]; then
		not_ok "report-progress-$cmd-pipe" "stderr not a terminal: want no bar, got:" "$(od -c "$TMP/$cmd.err2" | head -3)"
	else
		ok "report-progress-$cmd-pipe"
	fi
done
