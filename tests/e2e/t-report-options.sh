#!/usr/bin/env bash
# pcl report's options agree with perf report's on the same file. On a
# two-thread recording and a forking one (--sample-cpu, by perf and by pcl
# record): --sort comm,dso / sym / pid / dso,sym, the filters --comm,
# --dso, --symbols, --pid, --tid, --cpu 0, --percent-limit 5, -q,
# --kallsyms; on a frame-pointer -g recording of hot: the call-graph
# styles -g caller / callee / folded / flat / fractal, with and without
# --children; on other files: a pipe-mode stream read with -i - from a
# pipe, a zstd-compressed (perf record -z) file, a two-event file (one
# section per event) and an event group with --group, --stats (the record
# type counts), --header-only (the lines pcl prints must be perf's) and
# --header; code with no symbols (a JIT region, a stripped binary run
# twice, gcc), --percent-limit pruning call graphs and --percentage
# relative with filters. Each comparison, as in t-report-perf.sh: NAME the entries
# (overheads within 0.01), NAME-text the whole text with the overheads
# masked, entries of equal overhead and call-graph branches of equal
# percentage in any order, perf's '# (Tip: ...)' trailer dropped.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip report-options "perf is not installed"
	exit 0
fi
if ! has_cmd report; then
	not_ok report-options-command "'$PCL help' lists no report command (and 'pcl help report' fails)"
	exit 0
fi
command -v perl >/dev/null 2>&1 || { skip report-options "perl is not installed (the comparison is in perl)"; exit 0; }
. "$(dirname "$0")/report-lib.sh"
# --- recordings -----------------------------------------------------------------------
hot=$(workload hot) || { not_ok report-options-workload "cannot build tests/workloads/hot.c"; exit 0; }
threads=$(workload threads) || { not_ok report-options-workload "cannot build tests/workloads/threads.c"; exit 0; }
forks=$(workload forks) || { not_ok report-options-workload "cannot build tests/workloads/forks.c"; exit 0; }
have_pcl_record=1
has_record || have_pcl_record=0
# record BY CASE ARGS...: record_to (lib.sh) for this suite; perf without
# its BPF side-band thread, which costs a second.
record() {
	local by=$1
	shift
	if [ "$by" = perf ]; then
		record_to report-options perf "$1" --no-bpf-event "${@:2}"
	else
		record_to report-options pcl "$@"
	fi
}
# opt NAME FILE WHAT ARGS...: pcl report --stdio ARGS -i FILE against perf's.
opt() {
	local name=$1 f=$2 what=$3
	shift 3
	report_pair "$name" "$f" "$@"
	compare "report-options-$name" "$name" "$what" "--stdio $* -i $(basename "$f")"
}

# --- sort keys and filters ----------------------------------------------------------
for by in perf pcl; do
	for wl in threads forks; do
		id=$wl-$by
		if [ $wl = threads ]; then
			record $by "$id" --sample-cpu -F 4000 -o "$TMP/$id.data" -- "$threads" 2 300 || continue
			comm=wl-thread-1 sym=burn_t1 exe=$threads
		else
			record $by "$id" --sample-cpu -F 4000 -o "$TMP/$id.data" -- "$forks" 3 100 || continue
			comm=fk-exec-1 sym=child_burn exe=$forks
		fi
		F=$TMP/$id.data
		# the pid and tid of COMM, from perf script: "COMM PID/TID"
		pidtid=$(perf script -F comm,pid,tid -i "$F" 2>/dev/null | awk -v c="$comm" '$1 == c { print $2; exit }')
		pid=${pidtid%/*} tid=${pidtid#*/}
		for sort in comm,dso sym pid dso,sym; do
			opt "$id-sort-$sort" "$F" "rows text" --no-children --sort "$sort"
		done
		opt "$id-comm" "$F" "rows text" --no-children --comm "$comm"
		opt "$id-dso" "$F" "rows text" --no-children --dso "$(basename "$exe")"
		# a run may have no kernel sample at all: then both must show none
		opt "$id-dso-kernel" "$F" "rows text empty" --no-children --dso '[kernel.kallsyms]'
		opt "$id-symbols" "$F" "rows text" --no-children --symbols "$sym"
		# perf's own spellings: -c/--comms, -d/--dsos, -S
		opt "$id-comms-short" "$F" "rows text" --no-children -c "$comm" -d "$(basename "$exe")" -S "$sym"
		opt "$id-comms" "$F" "rows text" --no-children --comms "$comm" --dsos "$(basename "$exe")"
		if [ -n "$pidtid" ]; then
			opt "$id-pid" "$F" "rows text" --no-children --pid "$pid"
			opt "$id-tid" "$F" "rows text" --no-children --tid "$tid"
		else
			not_ok "report-options-$id-pid" "oracle: perf script -F comm,pid,tid finds no sample of '$comm'"
		fi
		# a loaded machine may run a workload on one CPU only
		opt "$id-cpu" "$F" "rows text empty" --no-children --cpu 0
		[ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ] && opt "$id-cpu1" "$F" "rows text empty" --no-children --cpu 1
		opt "$id-percent-limit" "$F" "rows text" --no-children --percent-limit 5
		opt "$id-sort-filter" "$F" "rows text" --no-children --sort comm,dso --comm "$comm" --percent-limit 1
		# a filter of a key not sorted by: no '# comm:' line; of the only key: its column stays
		# (perf shows none when the thread forked before its exec: its entry was made filtered)
		opt "$id-sort-pid-comm" "$F" "rows text empty" --no-children --sort pid --comm "$comm"
		opt "$id-sort-dso-dso" "$F" "rows text" --no-children --sort dso --dso "$(basename "$exe")"
		opt "$id-relative-comm" "$F" "rows text header" --no-children --comm "$comm" --percentage relative
		opt "$id-kallsyms" "$F" "rows text" --no-children --kallsyms /proc/kallsyms
		# -q: no comment lines, so no columns to cut: the text alone
		opt "$id-quiet" "$F" text --no-children -q
	done
done

# --- call-graph styles -----------------------------------------------------------------
if ! hotfp=$(workload_fp hot); then
	skip report-options-callgraph "clang is not installed (scripts/deps.sh)"
else
	for by in perf pcl; do
		id=fp-$by
		record $by "$id" -g -F 4000 -o "$TMP/$id.data" -- "$hotfp" 300 || continue
		F=$TMP/$id.data
		for g in caller callee folded flat fractal graph,0.5,caller; do
			opt "$id-g-$g" "$F" "rows text" --no-children -g "$g"
		done
		for g in caller folded; do
			opt "$id-children-g-$g" "$F" "rows text" --children -g "$g"
		done
		# --symfs: a tree that holds only the workload, at its path.
		mkdir -p "$TMP/symfs$(dirname "$hotfp")"
		cp "$hotfp" "$TMP/symfs$hotfp"
		opt "$id-symfs" "$F" "rows text" --no-children --symfs "$TMP/symfs"
	done
fi

# --- code with no symbols; --percent-limit and --percentage relative on call graphs -------
# jit: machine code in an anonymous executable mapping (perf's "[JIT] tid PID"
# DSO), entered half of the time with the frame pointer cleared: an entry's one
# root block has chains ending in it, so fractal shares are of the entry, the
# rest a '[...]' remainder. strip2: hot stripped of its symbols, run twice
# under one shell (two load addresses, one comm): each ip of a chain is its own
# children entry and call-graph node, not merged by DSO offset. gcc: a compile
# (chains without frame pointers, ending anywhere), where the fractal case was
# found. fp: --percent-limit 30 prunes hot's 20% warm_helper branch as perf's
# does (a later -g number wins). thrg: the threads workload with -g, filtered
# to one thread, --percentage relative: the header's counts and the entries'
# shares of what the filter keeps, the branches' of all.
jitwl=$(workload jit) || { not_ok report-options-workload "cannot build tests/workloads/jit.c"; jitwl=; }
for by in perf pcl; do
	if [ "$(uname -m)" != x86_64 ]; then
		skip "report-options-jit-$by" "the jit workload's machine code is x86-64"
	elif [ -n "$jitwl" ] && record $by "jit-$by" -g -F 4000 -o "$TMP/jit-$by.data" -- "$jitwl" 300; then
		F=$TMP/jit-$by.data
		opt "jit-$by-g-fractal" "$F" "rows text" --no-children -g fractal
		opt "jit-$by-children-g-fractal" "$F" "rows text" --children -g fractal
		opt "jit-$by-children" "$F" "rows text" --children
		opt "jit-$by-g-caller" "$F" "rows text" --no-children -g caller
	fi
	if ! command -v strip >/dev/null 2>&1; then
		skip "report-options-strip2-$by" "strip (binutils) is not installed"
	else
		# (and no build id, by which perf would find a cached unstripped hot's symbols)
		cp "$hot" "$TMP/hot-stripped" &&
			strip --remove-section=.note.gnu.build-id "$TMP/hot-stripped" &&
			record $by "strip2-$by" -g -F 4000 -o "$TMP/strip2-$by.data" -- \
				sh -c "'$TMP/hot-stripped' 150; '$TMP/hot-stripped' 150" &&
			for args in "--children" "--no-children" "--children -g fractal"; do
				name=$(echo "$args" | sed 's/^--//; s/ -*/-/g')
				# shellcheck disable=SC2086 # the words of args
				opt "strip2-$by-$name" "$TMP/strip2-$by.data" "rows text" $args
			done
	fi
	if [ -n "${hotfp:-}" ] && [ -s "$TMP/fp-$by.data" ]; then
		F=$TMP/fp-$by.data
		opt "fp-$by-children-percent-limit" "$F" "rows text" --children --percent-limit 30
		opt "fp-$by-fractal-percent-limit" "$F" "rows text" --children -g fractal --percent-limit 30
		opt "fp-$by-percent-limit-g-caller" "$F" "rows text" --percent-limit 30 --children -g caller
		opt "fp-$by-percent-limit-g-min" "$F" "rows text" --percent-limit 30 --children -g graph,0.5
		# a bare -g (before another option, or last) is perf's default graph
		opt "fp-$by-g-bare" "$F" "rows text" -g --no-children
		opt "fp-$by-g-last" "$F" "rows text" --no-children -g
	fi
	if record $by "thrg-$by" -g -F 4000 -o "$TMP/thrg-$by.data" -- "$threads" 2 300; then
		F=$TMP/thrg-$by.data
		tid=$(perf script -F comm,tid -i "$F" 2>/dev/null | awk '$1 == "wl-thread-0" { print $2; exit }')
		opt "thrg-$by-relative-comm" "$F" "rows text header" --children --comm wl-thread-1 --percentage relative
		opt "thrg-$by-relative-dso" "$F" "rows text header" --no-children --dso "$(basename "$threads")" \
			--percentage relative -g flat
		if [ -n "$tid" ]; then
			opt "thrg-$by-relative-tid" "$F" "rows text header" --no-children --tid "$tid" --percentage relative
			opt "thrg-$by-relative-tid-fractal" "$F" "rows text header" --children --tid "$tid" \
				--percentage relative -g fractal --percent-limit 1
		else
			not_ok "report-options-thrg-$by-relative-tid" "oracle: perf script -F comm,tid finds no sample of 'wl-thread-0'"
		fi
	fi
done
if ! command -v gcc >/dev/null 2>&1; then
	skip report-options-gcc "gcc is not installed"
else
	for i in $(seq 0 149); do
		echo "int f$i(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * $i + (s >> 3);" \
			"if (s & 1) s += f$((i ? i - 1 : 0))(a, n / 2); return s; }"
	done >"$TMP/gen.c"
	if record perf gcc -g -F 4000 -o "$TMP/gcc.data" -- gcc -O2 -c "$TMP/gen.c" -o "$TMP/gen.o"; then
		opt gcc-g-fractal "$TMP/gcc.data" "rows text" --no-children -g fractal
		opt gcc-children-g-fractal "$TMP/gcc.data" "rows text" --children -g fractal
		# with counts, the '[...]' remainder is the hidden branches' samples, if any
		opt gcc-g-fractal-count "$TMP/gcc.data" "rows text" --no-children -g fractal,5,callee,function,count
	fi
fi

# --- pipe mode, compressed, several events ----------------------------------------------
# A pipe-mode stream, saved, read by both from a pipe (cat FILE | report -i -)
# and from the file (-i FILE).
timeout -k 5 60 perf record -q --no-bpf-event -F 4000 -o - -- "$hot" 300 >"$TMP/pipe.data" 2>"$TMP/rec-pipe.err"
RC=$?
if [ "$RC" -ne 0 ] || [ ! -s "$TMP/pipe.data" ]; then
	not_ok report-options-pipe "oracle: perf record -o - failed (exit $RC)" "$(show "$TMP/rec-pipe.err")"
else
	timeout -k 5 60 perf report --stdio --no-children -i - <"$TMP/pipe.data" >"$TMP/pipe-stdin.perf.out" 2>"$TMP/pipe-stdin.perf.err"
	PRC=$?
	# shellcheck disable=SC2002 # a pipe, not a file, on stdin
	cat "$TMP/pipe.data" | timeout -k 5 60 "$PCL" report --stdio --no-children -i - >"$TMP/pipe-stdin.pcl.out" 2>"$TMP/pipe-stdin.pcl.err"
	CRC=$?
	compare report-options-pipe-stdin pipe-stdin "rows text" "--no-children -i - (a pipe-mode stream on a pipe)"
	opt pipe-file "$TMP/pipe.data" "rows text" --no-children
fi
# Live: perf record -o - | pcl report -i -, and pcl record -o - | pcl report -i -.
for by in perf pcl; do
	[ $by = pcl ] && [ $have_pcl_record = 0 ] && { skip report-options-live-pipe-pcl "this pcl has no record command"; continue; }
	if [ $by = perf ]; then rec=(perf record -q --no-bpf-event); else rec=("$PCL" record -q); fi
	timeout -k 5 60 "${rec[@]}" -F 4000 -o - -- "$hot" 300 2>"$TMP/live-$by.rec" |
		timeout -k 5 60 "$PCL" report --stdio --no-children --sort sym -i - >"$TMP/live-$by.out" 2>"$TMP/live-$by.err"
	RC=$?
	top=$(grep -v '^#' "$TMP/live-$by.out" | awk 'NF { print $3; exit }')
	if [ "$RC" -eq 0 ] && ! crashed "$TMP/live-$by.err" "$RC" && [ "$top" = hot_leaf ] && [ ! -s "$TMP/live-$by.err" ]; then
		ok "report-options-live-pipe-$by"
	else
		not_ok "report-options-live-pipe-$by" "$by record -o - -- hot 300 | pcl report --stdio --no-children --sort sym -i -:" \
			"exit $RC (want 0), top symbol '$top' (want hot_leaf), stderr (want none):" "$(show "$TMP/live-$by.err")" \
			"stdout:" "$(grep -v '^#' "$TMP/live-$by.out" | grep -v '^$' | head -5)"
	fi
done
# perf record -z: zstd-compressed records.
if record perf zstd -z -F 4000 -o "$TMP/zstd.data" -- "$hot" 300; then
	if ! perf report --header-only -i "$TMP/zstd.data" 2>/dev/null | grep -q '^# compressed'; then
		skip report-options-zstd "this perf wrote no compressed records with -z (no zstd support)"
	else
		opt zstd "$TMP/zstd.data" "rows text" --no-children
		opt zstd-sort-sym "$TMP/zstd.data" "rows text" --no-children --sort sym
	fi
fi
# Two events: one section per event; as an event group, --group.
for by in perf pcl; do
	if record $by two-$by -e cpu-clock,task-clock -F 4000 -o "$TMP/two-$by.data" -- "$hot" 300; then
		opt two-$by "$TMP/two-$by.data" "rows text" --no-children
		opt two-$by-group "$TMP/two-$by.data" "rows text" --no-children --group
	fi
	if record $by group-$by -e '{cpu-clock,task-clock}' -F 4000 -o "$TMP/group-$by.data" -- "$hot" 300; then
		opt group-$by "$TMP/group-$by.data" "rows text" --no-children
		opt group-$by-group "$TMP/group-$by.data" "rows text" --no-children --group
	fi
done

# --- --stats, --header-only, --header ------------------------------------------------------
# infos: the files recorded above that are there.
infos=()
for f in threads-perf threads-pcl forks-pcl two-perf two-pcl zstd pipe; do
	[ -s "$TMP/$f.data" ] && infos+=("$f")
done
for f in "${infos[@]}"; do
	# --stats: every line but the blank ones, exactly.
	run_long "$f-stats.perf" 60 perf report --stats -i "$TMP/$f.data"
	PRC=$RC
	run_long "$f-stats.pcl" 60 "$PCL" report --stats -i "$TMP/$f.data"
	grep -v '^[[:space:]]*$' "$TMP/$f-stats.perf.out" >"$TMP/$f-stats.perf.lines"
	grep -v '^[[:space:]]*$' "$TMP/$f-stats.pcl.out" >"$TMP/$f-stats.pcl.lines"
	if [ "$PRC" -ne 0 ] || ! grep -q 'SAMPLE events:' "$TMP/$f-stats.perf.lines"; then
		not_ok "report-options-$f-stats" "oracle: perf report --stats -i $f.data: exit $PRC" "$(show "$TMP/$f-stats.perf.err")"
	elif [ "$RC" -ne 0 ] || crashed "$TMP/$f-stats.pcl.err" "$RC"; then
		not_ok "report-options-$f-stats" "pcl report --stats -i $f.data: exit $RC (want 0)" "$(show "$TMP/$f-stats.pcl.err")"
	else
		diff_or_ok "report-options-$f-stats" "$TMP/$f-stats.perf.lines" "$TMP/$f-stats.pcl.lines" \
			"perf report --stats -i $f.data" "pcl report --stats -i $f.data"
	fi
	[ "$f" = pipe ] && continue # a stream has no header to show
	# --header-only: each "# KEY : VALUE" line pcl prints is one of perf's
	# (the values of a key, in order); and pcl prints the basic ones.
	run_long "$f-hdr.perf" 60 perf report --header-only -i "$TMP/$f.data"
	PRC=$RC
	run_long "$f-hdr.pcl" 60 "$PCL" report --header-only -i "$TMP/$f.data"
	if [ "$PRC" -ne 0 ]; then
		not_ok "report-options-$f-header-only" "oracle: perf report --header-only: exit $PRC" "$(show "$TMP/$f-hdr.perf.err")"
	elif [ "$RC" -ne 0 ] || crashed "$TMP/$f-hdr.pcl.err" "$RC"; then
		not_ok "report-options-$f-header-only" "pcl report --header-only -i $f.data: exit $RC (want 0)" "$(show "$TMP/$f-hdr.pcl.err")"
	else
		bad=$(perl -e '
			sub kv { my %h; open(my $fh, "<", $_[0]) or die;
				while (<$fh>) { chomp; push @{$h{$1}}, $2 if /^# ([^:]+?) +: (.*)$/ } return \%h }
			my ($p, $c) = (kv($ARGV[0]), kv($ARGV[1]));
			for my $k ("hostname", "os release", "arch", "nrcpus online", "nrcpus avail", "cmdline", "event") {
				print "pcl prints no \"# $k : ...\" line; perf: \"# $k : $p->{$k}[0]\"\n" if $p->{$k} && !$c->{$k} }
			for my $k (sort keys %$c) {
				my $pv = join("\n", @{$p->{$k} || []}); my $cv = join("\n", @{$c->{$k}});
				next if $pv eq $cv;
				if (!$p->{$k}) { print "pcl prints \"# $k : $c->{$k}[0]\", perf has no such line\n"; next }
				for my $i (0 .. ($#{$c->{$k}} > $#{$p->{$k}} ? $#{$c->{$k}} : $#{$p->{$k}})) {
					my ($x, $y) = ($p->{$k}[$i] // "(none)", $c->{$k}[$i] // "(none)");
					print "# $k :\n    perf: $x\n    pcl:  $y\n" if $x ne $y }
			}' "$TMP/$f-hdr.perf.out" "$TMP/$f-hdr.pcl.out")
		if [ -z "$bad" ]; then
			ok "report-options-$f-header-only"
		else
			not_ok "report-options-$f-header-only" "pcl report --header-only -i $f.data: lines that are not perf's:" "$bad"
		fi
	fi
	# --header: the header, then the report: the report's entries and head lines.
	opt "$f-header-report" "$TMP/$f.data" "rows header" --no-children --header
done

# A file without samples: perf prints its two comment lines, then says on
# stderr that the data has no samples (exit 0); pcl says it once too.
perf record -q -e page-faults -c 1000000000 -o "$TMP/nosamples.data" -- true >/dev/null 2>&1
run_long nos.perf 60 perf report --stdio -i "$TMP/nosamples.data"
PRC=$RC
run_long nos.pcl 60 "$PCL" report --stdio -i "$TMP/nosamples.data"
if [ "$PRC" -ne 0 ] || ! grep -q 'has no samples' "$TMP/nos.perf.err"; then
	not_ok report-options-no-samples "oracle: perf report on a file without samples: exit $PRC, no 'has no samples':" \
		"$(show "$TMP/nos.perf.err")"
elif [ "$RC" -ne 0 ] || ! cmp -s "$TMP/nos.perf.out" "$TMP/nos.pcl.out" ||
	[ "$(grep -c 'has no samples' "$TMP/nos.pcl.err")" != 1 ]; then
	not_ok report-options-no-samples "pcl report on a file without samples: exit $RC; stdout, then stderr:" \
		"$(diff -u "$TMP/nos.perf.out" "$TMP/nos.pcl.out")" "$(show "$TMP/nos.pcl.err")"
else
	ok report-options-no-samples
fi
