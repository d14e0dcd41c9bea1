#!/usr/bin/env bash
# Issue 13: pcl script's fields, --header, -S and -D (script and report)
# against perf 6.1 on the same files. This VM records no branch stacks,
# registers of PEBS or memory-access fields, so gen-perfdata.py writes
# files that hold them (branch stacks with and without hw_idx, user and
# interrupt registers, addr/data_src/weight/phys_addr/page sizes, a
# branch-trace event) and both tools read them; --header, -S and -D are
# also compared on a file perf records here.
. "$(dirname "$0")/lib.sh"

if ! have_perf; then
	skip script-perf13 "perf is not installed"
	exit 0
fi
if ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
	skip script-perf13 "python3 or nm is missing (gen-perfdata.py needs them)"
	exit 0
fi
hot=$(workload hot) || { not_ok script-perf13-workload "cannot build tests/workloads/hot.c"; exit 0; }
gen=$(dirname "$0")/gen-perfdata.py

# pair NAME FILE ARGS...: perf script and pcl script with ARGS on FILE; ok
# when stdout and the exit status agree (perf's 255 for an error is pcl's 1).
pair() {
	local name=$1 f=$2
	shift 2
	timeout -k 5 60 perf script "$@" -i "$f" >"$TMP/p.out" 2>"$TMP/p.err"
	local prc=$?
	timeout -k 5 60 "$PCL" script "$@" -i "$f" >"$TMP/c.out" 2>"$TMP/c.err"
	local crc=$?
	if crashed "$TMP/c.err" "$crc"; then
		not_ok "$name" "pcl script $* crashed (exit $crc)" "$(show "$TMP/c.err")"
	elif [ "$prc" -eq 0 ] && [ "$crc" -ne 0 ]; then
		not_ok "$name" "pcl script $*: exit $crc, perf's 0" "$(show "$TMP/c.err")"
	elif [ "$prc" -ne 0 ] && [ "$crc" -eq 0 ]; then
		not_ok "$name" "pcl script $*: exit 0, perf refuses it (exit $prc):" "$(show "$TMP/p.err")"
	elif [ "$prc" -eq 0 ] && [ ! -s "$TMP/p.out" ] && [ "${EMPTY_OK:-0}" = 0 ]; then
		not_ok "$name" "oracle: perf script $* printed nothing" "$(show "$TMP/p.err")"
	else
		diff_or_ok "$name" "$TMP/p.out" "$TMP/c.out" "perf script $*" "pcl script $*"
	fi
}

for kind in branch branch-hwidx regs mem mem-struct bts mixed; do
	f=$TMP/$kind.data
	if ! python3 "$gen" "$f" "$kind" "$hot" 2>"$TMP/gen.err"; then
		not_ok "script-perf13-gen-$kind" "gen-perfdata.py $kind failed" "$(show "$TMP/gen.err")"
		continue
	fi
	pair "script-perf13-$kind-default" "$f"
	pair "script-perf13-$kind-D" "$f" -D
	for F in +brstack +brstacksym +brstackoff ip,brstack ip,brstacksym ip,sym,brstackoff,dso \
		ip,iregs,uregs +flags ip,flags callindent,dso,sym ip,callindent,dso +addr ip,sym,addr \
		+weight ip,weight,ins_lat ip,phys_addr,data_page_size,code_page_size +data_src \
		ip,data_src,weight +machine_pid,+vcpu; do
		pair "script-perf13-$kind-F-$F" "$f" -F "$F"
	done
done

# A file perf records here: --header, --header-only, -S, -D.
if timeout -k 5 60 perf record -q --no-bpf-event -F 2000 -g -o "$TMP/rec.data" -- "$hot" 300 \
	>/dev/null 2>"$TMP/rec.err"; then
	pair script-perf13-header "$TMP/rec.data" --header
	pair script-perf13-header-only "$TMP/rec.data" --header-only
	pair script-perf13-S "$TMP/rec.data" -S hot_leaf,middle
	EMPTY_OK=1 pair script-perf13-S-none "$TMP/rec.data" -S no_such_function
	pair script-perf13-symbols "$TMP/rec.data" --symbols=hot_leaf
	# perf's -D in file order, except what perf dumps but pcl does not
	# detail (THREAD_MAP, CPU_MAP) and FINISHED_ROUND, which perf dumps
	# when it reads it, ahead of the records it queued.
	timeout -k 5 60 perf script -D -i "$TMP/rec.data" >"$TMP/p.out" 2>&1
	timeout -k 5 60 "$PCL" script -D -i "$TMP/rec.data" >"$TMP/c.out" 2>&1
	filt() { grep -E '^(0x[0-9a-f]+@|[0-9 ]*0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_(SAMPLE|MMAP|MMAP2|COMM|EXIT|FORK)|\.\.\.|\t|\S+ +[0-9]+ [0-9.]+:)' "$1" |
		grep -v -E '@.* event: (68|73|74)$'; }
	filt "$TMP/p.out" >"$TMP/p.f"
	filt "$TMP/c.out" >"$TMP/c.f"
	if [ "$(wc -l <"$TMP/p.f")" -lt 100 ]; then
		not_ok script-perf13-D-recorded "oracle: perf script -D printed $(wc -l <"$TMP/p.f") record lines"
	else
		diff_or_ok script-perf13-D-recorded "$TMP/p.f" "$TMP/c.f" "perf script -D" "pcl script -D"
	fi
	timeout -k 5 60 perf report -D -i "$TMP/rec.data" >"$TMP/p.out" 2>&1
	timeout -k 5 60 "$PCL" report -D -i "$TMP/rec.data" >"$TMP/c.out" 2>&1
	filt "$TMP/p.out" >"$TMP/p.f"
	filt "$TMP/c.out" >"$TMP/c.f"
	diff_or_ok report-perf13-D-recorded "$TMP/p.f" "$TMP/c.f" "perf report -D" "pcl report -D"
else
	not_ok script-perf13-record "oracle: perf record failed" "$(show "$TMP/rec.err")"
fi

# Fields pcl cannot print are refused, with one line and no output.
timeout -k 5 20 "$PCL" script -F +brstackinsn -i "$TMP/branch.data" >"$TMP/c.out" 2>"$TMP/c.err"
rc=$?
if [ "$rc" -ne 0 ] && ! crashed "$TMP/c.err" "$rc" && [ "$(wc -l <"$TMP/c.err")" -eq 1 ] && [ ! -s "$TMP/c.out" ]; then
	ok script-perf13-refuse-brstackinsn
else
	not_ok script-perf13-refuse-brstackinsn "exit $rc, stderr:" "$(show "$TMP/c.err")"
fi
# Option prefixes: unambiguous ones are taken, ambiguous ones refused, as perf.
pair script-perf13-prefix-header "$TMP/branch.data" --header-o
pair script-perf13-prefix-ambiguous "$TMP/branch.data" --head
