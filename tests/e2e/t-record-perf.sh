#!/usr/bin/env bash
# Files written by pcl record are read by Linux perf without a warning, and
# perf finds in them what is there: the hot function of a CPU-bound
# workload, its frame-pointer call chain, the header (host, os, arch, cpus,
# memory, command line, events) and the attributes of the events.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip record-perf "perf is not installed"
	exit 0
fi
if ! has_record; then
	not_ok record-perf-command "'$PCL help' lists no record command"
	exit 0
fi
hot=$(workload hot) || { not_ok record-perf-workload "cannot build tests/workloads/hot.c"; exit 0; }

# --- a plain recording, and perf's own of the same workload -----------------
F=$TMP/hot.data
run_long perfrec 30 perf record -o "$TMP/perf.data" -- "$hot" 500
if [ "$RC" -ne 0 ]; then
	not_ok record-perf-oracle "perf record failed (exit $RC):" "$(show "$TMP/perfrec.err")"
	exit 0
fi
run_long rec 30 "$PCL" record -o "$F" -- "$hot" 500
if [ "$RC" -ne 0 ] || crashed "$TMP/rec.err" "$RC" || [ ! -s "$F" ]; then
	not_ok record-perf-record "pcl record -o F -- hot 500: exit $RC (want 0), file $(stat -c %s "$F" 2>/dev/null || echo missing)" \
		"stderr:" "$(show "$TMP/rec.err")"
	exit 0
fi
ok record-perf-record

# perf reads it, with no complaint on stderr.
perf_reads_clean record-perf-report-clean report perf report --stdio -i "$F"
perf_reads_clean record-perf-script-clean script perf script -i "$F"
perf_reads_clean record-perf-evlist-clean evlist perf evlist -v -i "$F"
perf_reads_clean record-perf-header-clean header perf report --header-only -i "$F"
perf_reads_clean record-perf-stats-clean stats perf report --stats -i "$F"

# The summary on stderr: both lines, the right path, the samples in the file.
read -r woken mb path nsum <<<"$(record_summary "$TMP/rec.err")"
nfile=$(perf_samples "$F")
size=$(stat -c %s "$F")
if [ "$woken" != - ] && [ "$path" = "$F" ] && [ "$nsum" = "$nfile" ] && [ -n "$nfile" ] &&
	awk -v m="$mb" -v s="$size" 'BEGIN { d = m * 1048576 - s; if (d < 0) d = -d; exit !(d <= 0.01 * 1048576) }'; then
	ok record-perf-summary
else
	not_ok record-perf-summary "summary: woken '$woken', MB '$mb', path '$path', samples '$nsum'" \
		"want: a 'Woken up N times' line, path '$F', samples = perf report --stats SAMPLE events ('$nfile')," \
		"MB within 0.01 of the file size ($size bytes)" "stderr:" "$(show "$TMP/rec.err")"
fi

# The file's structure, walked without perf: whole records up to the
# header's data size, then the feature sections, ending at the file's end.
walk=$(data_walk "$F")
if [ "$(walk_get "$walk" mode)" = nopython ]; then
	skip record-perf-file-structure "python3 is not installed"
elif [ "$(walk_get "$walk" mode)" = file ] && [ "$(walk_get "$walk" tail)" = 0 ] &&
	[ "$(walk_get "$walk" feat_end)" = "$size" ] && [ "$(walk_get "$walk" samples)" = "$nfile" ]; then
	ok record-perf-file-structure
else
	not_ok record-perf-file-structure "pcl's file walked record by record: $walk" \
		"want mode=file, tail=0 (whole records), feat_end=$size (the file size)," \
		"samples=$nfile (perf report --stats)"
fi

# --- the hot symbol ----------------------------------------------------------
# share SYM FILE: percentage of SYM in 'perf report --no-children --sort sym'.
share() { awk -v s="$1" '$2 == "[.]" && $3 == s { sub(/%/, "", $1); print $1; exit }' "$2"; }
perf report --stdio --no-children --sort sym -i "$F" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/sym.pcl"
perf report --stdio --no-children --sort sym -i "$TMP/perf.data" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/sym.perf"
top=$(awk 'NR == 1 { print $3 }' "$TMP/sym.pcl")
h=$(share hot_leaf "$TMP/sym.pcl")
w=$(share warm_helper "$TMP/sym.pcl")
hp=$(share hot_leaf "$TMP/sym.perf")
if [ "$top" = hot_leaf ] && awk -v h="${h:-0}" -v w="${w:-0}" 'BEGIN { exit !(h >= 60 && w >= 8 && w <= 35) }'; then
	ok record-perf-top-symbol
else
	not_ok record-perf-top-symbol "perf report --no-children --sort sym on pcl's file: top '$top' (want hot_leaf)," \
		"hot_leaf ${h:-none}% (want >= 60; perf's own recording: ${hp:-none}%), warm_helper ${w:-none}% (want 8..35)" \
		"pcl's file:" "$(show "$TMP/sym.pcl" 8)" "perf's file:" "$(show "$TMP/sym.perf" 8)"
fi

# --- perf evlist -v: the attr of the event ------------------------------------
evlist_attr "$F" >"$TMP/attr.pcl"
evlist_attr "$TMP/perf.data" >"$TMP/attr.perf"
name=$(perf evlist -i "$F" 2>/dev/null | head -1)
want_freq=$(sed -n 's/^sample_period_freq=//p' "$TMP/attr.perf")
missing=""
for k in sample_type:IP sample_type:TID sample_type:TIME sample_type:PERIOD freq=1 "sample_period_freq=$want_freq" \
	disabled=1 inherit=1 mmap=1 comm=1 enable_on_exec=1 sample_id_all=1; do
	grep -qxF "$k" "$TMP/attr.pcl" || missing="$missing $k"
done
if [[ "$name" == cpu-clock* ]] && [ -z "$missing" ]; then
	ok record-perf-evlist-attr
else
	not_ok record-perf-evlist-attr "perf evlist on pcl's file: event '$name' (want cpu-clock: no hardware PMU)," \
		"missing from its attr:${missing:- nothing} (want what perf record sets by default)" \
		"perf evlist -v:" "$(perf evlist -v -i "$F" 2>&1 | head -5)" \
		"perf's own: $(perf evlist -v -i "$TMP/perf.data" 2>&1 | head -1)"
fi

# --- perf report --header-only -------------------------------------------------
# hdr FILE KEY: the value of "# KEY : value" in FILE.
hdr() { sed -n "s/^# $2 *: //p" "$1" | head -1 | sed 's/ *$//'; }
H=$TMP/header.out # from record-perf-header-clean
perf report --header-only -i "$TMP/perf.data" >"$TMP/header.perf" 2>/dev/null
bad=()
[ "$(hdr "$H" hostname)" = "$(uname -n)" ] || bad+=("hostname '$(hdr "$H" hostname)', want '$(uname -n)'")
[ "$(hdr "$H" 'os release')" = "$(uname -r)" ] || bad+=("os release '$(hdr "$H" 'os release')', want '$(uname -r)'")
[ "$(hdr "$H" arch)" = "$(uname -m)" ] || bad+=("arch '$(hdr "$H" arch)', want '$(uname -m)'")
[ "$(hdr "$H" 'nrcpus online')" = "$(getconf _NPROCESSORS_ONLN)" ] ||
	bad+=("nrcpus online '$(hdr "$H" 'nrcpus online')', want '$(getconf _NPROCESSORS_ONLN)'")
[ "$(hdr "$H" 'nrcpus avail')" = "$(hdr "$TMP/header.perf" 'nrcpus avail')" ] ||
	bad+=("nrcpus avail '$(hdr "$H" 'nrcpus avail')', perf's '$(hdr "$TMP/header.perf" 'nrcpus avail')'")
[ -n "$(hdr "$H" cpudesc)" ] && [ "$(hdr "$H" cpudesc)" = "$(hdr "$TMP/header.perf" cpudesc)" ] ||
	bad+=("cpudesc '$(hdr "$H" cpudesc)', perf's '$(hdr "$TMP/header.perf" cpudesc)'")
mem=$(awk '/^MemTotal:/ { print $2 " kB" }' /proc/meminfo)
[ "$(hdr "$H" 'total memory')" = "$mem" ] || bad+=("total memory '$(hdr "$H" 'total memory')', want '$mem'")
cmdline=$(hdr "$H" cmdline)
[[ "$cmdline" == *record* && "$cmdline" == *"$hot 500"* ]] ||
	bad+=("cmdline '$cmdline', want pcl's command line ('... record -o $F -- $hot 500')")
ev=$(hdr "$H" event)
[[ "$ev" == "name = cpu-clock"* && "$ev" == *"sample_type = IP|TID|TIME"* ]] ||
	bad+=("event '$ev', want 'name = cpu-clock..., sample_type = IP|TID|TIME|...'")
if [ ${#bad[@]} -eq 0 ]; then
	ok record-perf-header
else
	not_ok record-perf-header "${bad[@]}" "perf report --header-only on pcl's file:" "$(show "$H" 30)"
fi

# --- -g: frame-pointer call chains ---------------------------------------------
if ! hotfp=$(workload_fp hot); then
	skip record-perf-callchain "clang is not installed (scripts/deps.sh)"
else
	G=$TMP/hot-g.data
	run_long recg 30 "$PCL" record -g -o "$G" -- "$hotfp" 500
	if [ "$RC" -ne 0 ] || crashed "$TMP/recg.err" "$RC"; then
		not_ok record-perf-callchain "pcl record -g: exit $RC:" "$(show "$TMP/recg.err")"
	else
		perf_reads_clean record-perf-callchain-report-clean reportg perf report --stdio --no-children -g caller -i "$G"
		perf_reads_clean record-perf-callchain-script-clean scriptg perf script -F comm,tid,ip,sym -i "$G"
		perf_reads_clean record-perf-callchain-dump-clean dumpg perf report -D -i "$G"
		# Of the samples whose leaf is hot_leaf, how many have the chain
		# hot_leaf <- middle <- outer <- main; and of warm_helper's, main.
		# chains FILE: "HOT HOT_OK WARM WARM_OK"
		chains() {
			awk 'function flush() { if (n) {
					if (s[1] == "hot_leaf") { hot++; if (s[2] == "middle" && s[3] == "outer" && s[4] == "main") hok++ }
					if (s[1] == "warm_helper") { warm++; if (s[2] == "main") wok++ } }
					n = 0 }
				/^[^\t]/ { flush(); next }
				/^\t/ { s[++n] = $2 }
				END { flush(); printf "%d %d %d %d\n", hot, hok, warm, wok }' "$1"
		}
		read -r hot hok warm wok <<<"$(chains "$TMP/scriptg.out")"
		if [ "$hot" -ge 50 ] && [ $((hok * 100)) -ge $((hot * 90)) ] && [ "$warm" -ge 10 ] &&
			[ $((wok * 100)) -ge $((warm * 90)) ]; then
			ok record-perf-callchain
		else
			perf record -q -g -o "$TMP/perf-g.data" -- "$hotfp" 500 2>/dev/null
			perf script -F comm,tid,ip,sym -i "$TMP/perf-g.data" >"$TMP/perf-g.script" 2>/dev/null
			not_ok record-perf-callchain "perf script on pcl -g file: $hot samples in hot_leaf, $hok with chain" \
				"hot_leaf<-middle<-outer<-main; $warm in warm_helper, $wok with warm_helper<-main" \
				"want >= 50 and >= 10 samples, >= 90% with the full chain; perf's own recording:" \
				"$(chains "$TMP/perf-g.script")" "pcl's file (perf script):" \
				"$(grep -A5 -m3 hot_leaf "$TMP/scriptg.out")"
		fi
		# perf report -g caller prints the chain main -> outer -> middle -> hot_leaf
		# under hot_leaf's entry.
		# The names under hot_leaf's entry, in order, with the tree's
		# "|", "---" and "--NN%--" drawn away.
		if awk '/\[[.k]\] / { if (f) exit; if ($NF == "hot_leaf") f = 1; next }
				f { sub(/.*-/, ""); gsub(/[| ]/, ""); if ($0 != "") c = c " " $0 }
				END { print c " " }' "$TMP/reportg.out" | grep -q ' main outer middle hot_leaf '; then
			ok record-perf-callchain-report
		else
			not_ok record-perf-callchain-report "perf report --stdio --no-children -g caller on pcl -g file:" \
				"want under hot_leaf the chain ---main / outer / middle / hot_leaf; got:" \
				"$(grep -v '^#' "$TMP/reportg.out" | grep -v '^$' | head -12)"
		fi
	fi
fi
