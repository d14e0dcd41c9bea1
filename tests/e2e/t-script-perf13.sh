#!/usr/bin/env bash
# Issue 13: pcl script's fields, --header, -S and -D (script and report)
# against perf 6.1 on the same files. This VM records no branch stacks,
# registers of PEBS or memory-access fields, so gen-perfdata.py writes
# files that hold them (branch stacks with and without hw_idx, user and
# interrupt registers, addr/data_src/weight/phys_addr/page sizes, a
# branch-trace event, a BPF output event) and both tools read them;
# --header, -S, -D, tod (record -k), srccode, insn/insnlen, group reads
# ({a,b}:S) and the fields perf prints empty here are compared on files
# perf records here, -D on a pipe-mode stream too.
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

# vdso_tmp FILE: perf 6.1 names the vDSO by the temporary copy it made of
# it, /tmp/perf-vdso.so-XXXXXX, where it reads it from a stream or from
# compressed records (-z), and in -D prints that name: pcl says [vdso]
# (a sample lands there now and then: clock_gettime).
vdso_tmp() { sed -i -E 's|dso: /tmp/perf-vdso\.so-[A-Za-z0-9]+$|dso: [vdso]|' "$1"; }

# pair NAME FILE ARGS...: perf script and pcl script with ARGS on FILE; ok
# when stdout and the exit status agree (perf's 255 for an error is pcl's 1).
pair() {
	local name=$1 f=$2
	shift 2
	timeout -k 5 60 perf script "$@" -i "$f" >"$TMP/p.out" 2>"$TMP/p.err"
	local prc=$?
	timeout -k 5 60 "$PCL" script "$@" -i "$f" >"$TMP/c.out" 2>"$TMP/c.err"
	local crc=$?
	vdso_tmp "$TMP/p.out"
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

for kind in branch branch-hwidx regs mem mem-struct bts mixed bpf; do
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
		ip,data_src,weight +machine_pid,+vcpu +srccode ip,srccode +ipc +metric +synth \
		+bpf-output ip,bpf-output -bpf-output +insn,+insnlen ip,brstackinsn +brstackinsn \
		ip,brstackinsnlen +brstackinsnlen,+srccode ip,sym,brstackinsn,srcline; do
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
	# -D dumps every record; the filters keep or drop only the lines
	pair script-perf13-D-S "$TMP/rec.data" -D -S hot_leaf
	pair script-perf13-D-comms "$TMP/rec.data" -D --comms nobody
	for c in script report; do
		timeout -k 5 60 perf $c -D -i "$TMP/rec.data" >"$TMP/p.out" 2>&1
		timeout -k 5 60 "$PCL" $c -D -i "$TMP/rec.data" >"$TMP/c.out" 2>&1
		if [ "$(grep -c 'PERF_RECORD_SAMPLE' "$TMP/p.out")" -lt 50 ]; then
			not_ok "$c-perf13-D-recorded" "oracle: perf $c -D dumped $(grep -c PERF_RECORD_SAMPLE "$TMP/p.out") samples"
		else
			diff_or_ok "$c-perf13-D-recorded" "$TMP/p.out" "$TMP/c.out" "perf $c -D" "pcl $c -D"
		fi
	done
	# a pipe-mode stream: perf also dumps the stream's header records
	# (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE), which pcl's reader takes
	# in without handing them on; everything else must match
	if timeout -k 5 60 perf record -q --no-bpf-event -F 2000 -o - -- "$hot" 200 >"$TMP/pipe.data" 2>/dev/null; then
		for c in script report; do
			timeout -k 5 60 perf $c -D -i "$TMP/pipe.data" >"$TMP/p.out" 2>&1
			timeout -k 5 60 "$PCL" $c -D -i "$TMP/pipe.data" >"$TMP/c.out" 2>&1
			python3 - "$TMP/p.out" >"$TMP/p.f" <<'PY'
import re, sys
out, drop = [], False
for line in open(sys.argv[1]).read().split("\n"):
    m = re.match(r"(0x[0-9a-f]+|0)@pipe \[0x[0-9a-f]+\]: event: (\d+)$", line)
    if m:
        drop = int(m.group(2)) in (64, 78, 80)
        if out and out[-1] == "":
            out.pop()
        if not drop:
            out.append("")
    if not drop:
        out.append(line)
print("\n".join(out), end="")
PY
			# their counts, and so the total and the shares, differ too
			# (and the vDSO's name, as vdso_tmp says)
			grep -v -E '^ +(ATTR|HEADER_ATTR|EVENT_UPDATE|FEATURE|TOTAL) events' "$TMP/p.f" |
				sed -E 's/  \( *[0-9.]+%\)$//; s|dso: /tmp/perf-vdso\.so-[A-Za-z0-9]+$|dso: [vdso]|' >"$TMP/p.g"
			grep -v -E '^ +(TOTAL) events' "$TMP/c.out" | sed -E 's/  \( *[0-9.]+%\)$//' >"$TMP/c.g"
			diff_or_ok "$c-perf13-D-pipe" "$TMP/p.g" "$TMP/c.g" "perf $c -D (pipe)" "pcl $c -D (pipe)"
		done
	else
		not_ok script-perf13-D-pipe "oracle: perf record -o - failed"
	fi
	# --header of a stream: its features as they come; --header-only: none
	for h in --header --header-only; do
		timeout -k 5 60 perf script $h -i - <"$TMP/pipe.data" >"$TMP/p.out" 2>&1
		timeout -k 5 60 "$PCL" script $h -i - <"$TMP/pipe.data" >"$TMP/c.out" 2>&1
		diff_or_ok "script-perf13-pipe$h" "$TMP/p.out" "$TMP/c.out" "perf script $h -i -" "pcl script $h -i -"
	done
	# zstd-compressed records (record -z): dumped expanded, counted as perf counts them
	if timeout -k 5 60 perf record -q --no-bpf-event -z -F 2000 -o "$TMP/z.data" -- "$hot" 200 \
		>/dev/null 2>&1 && perf report --header-only -i "$TMP/z.data" 2>/dev/null | grep -q '^# compressed'; then
		for c in script report; do
			timeout -k 5 60 perf $c -D -i "$TMP/z.data" >"$TMP/p.out" 2>&1
			timeout -k 5 60 "$PCL" $c -D -i "$TMP/z.data" >"$TMP/c.out" 2>&1
			vdso_tmp "$TMP/p.out"
			diff_or_ok "$c-perf13-D-zstd" "$TMP/p.out" "$TMP/c.out" "perf $c -D (record -z)" "pcl $c -D"
		done
	else
		skip script-perf13-D-zstd "perf record -z wrote no compressed records"
	fi
	# tod needs CLOCK_DATA: refused on rec.data, as perf refuses it; printed with -k
	pair script-perf13-tod-refused "$TMP/rec.data" -F +tod
	if timeout -k 5 60 perf record -q --no-bpf-event -k mono -F 2000 -o "$TMP/clk.data" -- "$hot" 200 \
		>/dev/null 2>&1; then
		pair script-perf13-tod "$TMP/clk.data" -F +tod
		pair script-perf13-tod-ns "$TMP/clk.data" -F tod,comm,time,ip --ns
		pair script-perf13-tod-task "$TMP/clk.data" --show-task-events -F +tod
	else
		not_ok script-perf13-tod "oracle: perf record -k mono failed"
	fi
	pair script-perf13-srccode "$TMP/rec.data" -F +srccode
	# the instruction at each ip, read from its file (this machine's, as the
	# file's ARCH says), [vdso] too
	pair script-perf13-insn "$TMP/rec.data" -F +insn,+insnlen
	pair script-perf13-insn-G "$TMP/rec.data" -F ip,sym,insnlen,insn -G
	# PERF_SAMPLE_READ groups ({a,b}:S): perf shows each member's growth as
	# a sample of its own; and two events told apart by their ids
	for g in '{task-clock,cpu-clock}:S' task-clock,cpu-clock; do
		id=grp
		[ "$g" = task-clock,cpu-clock ] && id=two
		if timeout -k 5 60 perf record -q --no-bpf-event -e "$g" -o "$TMP/$id.data" -- "$hot" 200 \
			>/dev/null 2>&1; then
			pair script-perf13-$id "$TMP/$id.data"
			pair script-perf13-$id-D "$TMP/$id.data" -D
			timeout -k 5 60 perf report -D -i "$TMP/$id.data" >"$TMP/p.out" 2>&1
			timeout -k 5 60 "$PCL" report -D -i "$TMP/$id.data" >"$TMP/c.out" 2>&1
			vdso_tmp "$TMP/p.out"
			diff_or_ok report-perf13-$id-D "$TMP/p.out" "$TMP/c.out" "perf report -D" "pcl report -D"
		else
			not_ok script-perf13-$id "oracle: perf record -e '$g' failed"
		fi
	done
else
	not_ok script-perf13-record "oracle: perf record failed" "$(show "$TMP/rec.err")"
fi

# One of each side-band record the kernel writes (LOST, THROTTLE, READ, AUX,
# ITRACE_START, LOST_SAMPLES, SWITCH, NAMESPACES, KSYMBOL, BPF_EVENT, CGROUP,
# TEXT_POKE, AUX_OUTPUT_HW_ID, FORK, EXIT): -D of script and report, and the
# side-band lines.
if python3 "$gen" "$TMP/records.data" records "$hot" 2>"$TMP/gen.err"; then
	pair script-perf13-records-D "$TMP/records.data" -D
	pair script-perf13-records-show "$TMP/records.data" --show-task-events --show-switch-events \
		--show-lost-events --show-mmap-events
	timeout -k 5 60 perf report -D -i "$TMP/records.data" >"$TMP/p.out" 2>/dev/null
	timeout -k 5 60 "$PCL" report -D -i "$TMP/records.data" >"$TMP/c.out" 2>"$TMP/c.err"
	diff_or_ok report-perf13-records-D "$TMP/p.out" "$TMP/c.out" "perf report -D" "pcl report -D"
else
	not_ok script-perf13-gen-records "gen-perfdata.py records failed" "$(show "$TMP/gen.err")"
fi

# brstackinsn of a file without branch stacks is refused, as perf refuses it.
pair script-perf13-refuse-brstackinsn "$TMP/regs.data" -F +brstackinsn
# ... and the hint names a command that exists: pcl record has no -b
if grep -q "perf record -b" "$TMP/c.err" && ! "$PCL" record -h 2>&1 | grep -qE '^ +-b,'; then
	ok script-perf13-brstackinsn-hint
else
	not_ok script-perf13-brstackinsn-hint "pcl's hint should name perf record -b (pcl record has no -b):" "$(show "$TMP/c.err")"
fi
# Option prefixes: unambiguous ones are taken, ambiguous ones refused, as perf.
pair script-perf13-prefix-header "$TMP/branch.data" --header-o
pair script-perf13-prefix-ambiguous "$TMP/branch.data" --head
