#!/usr/bin/env bash
# pcl probe against perf probe on the same binary: the uprobe_events line each
# writes (offset and fetch args), the event names, -L, -V, -F and -l; hit
# counts through pcl stat equal the calls the workload makes; -d removes
# what was added and tracefs ends as it began.
. "$(dirname "$0")/lib.sh"

tfs=/sys/kernel/tracing
[ -e $tfs/uprobe_events ] || tfs=/sys/kernel/debug/tracing
if [ ! -w $tfs/uprobe_events ]; then
	skip probe "no writable uprobe_events in tracefs (needs root and CONFIG_UPROBE_EVENTS)"
	exit 0
fi
src=$WORKLOADS/probed
if [ ! -x "$src" ]; then
	skip probe "workload $src not built (make tests)"
	exit 0
fi
# a copy with its own name: its group (probe_probedt<pid>) is this test's alone
name=probedt$$
bin=$TMP/$name
cp "$src" "$bin"
group=probe_$name
events() { grep -F " $bin:" $tfs/uprobe_events | sed "s|^\([pr]\):[^ ]* |\1 |" | sort; }
names() { grep -F " $bin:" $tfs/uprobe_events | cut -d' ' -f1 | sort; }
cleanup() {
	grep -oE "probe_(probedt|probedz)$$/[^ ]+" $tfs/uprobe_events 2>/dev/null | sort -u |
		while read -r e; do echo "-:$e" >>$tfs/uprobe_events; done
	rm -rf "$TMP"
}
trap cleanup EXIT
before=$(grep -v "$bin" $tfs/uprobe_events | sort)

# ---- adding: the line pcl writes is perf's, name, offset and fetch args ----
# compare_add BIN SPEC: what perf probe and pcl probe write for SPEC
compare_add() {
	local b=$1 s=$2 want got
	local g=probe_$(basename "$b")
	lines() { grep -F " $b:" $tfs/uprobe_events | sort; }
	perf probe -q -x "$b" -a "$s" >/dev/null 2>&1
	want=$(lines)
	perf probe -q -d "$g:*" >/dev/null 2>&1
	"$PCL" probe -q -x "$b" -a "$s" >"$TMP/add.out" 2>&1
	got=$(lines)
	"$PCL" probe -q -d "$g:*" >/dev/null 2>&1
	if [ -z "$want" ]; then
		skip "probe-add '$s'${3:-}" "perf probe could not add it here"
	elif [ "$want" = "$got" ]; then
		ok "probe-add '$s'${3:-}"
	else
		not_ok "probe-add '$s'${3:-}" "perf wrote:" "$want" "pcl wrote:" "$got" "$(show "$TMP/add.out")"
	fi
}
specs=(
	'probed_add'
	'probed_add%return $retval'
	'probed_add a b p->value p->label:string'
	'probed_name name:string big'
	'probed_name big:u64 n=name:string'
	'probed_add:4'
	'probed.c:22 sum'
	'probed_add $params'
	'probed_add %di %si:u32'
	'probed_inl'
)
if have_perf; then
	for s in "${specs[@]}"; do
		compare_add "$bin" "$s"
	done
	# built without optimization: perf skips the prologue when variables are
	# fetched, they live in the frame (DW_OP_fbreg through the CFA), and a
	# line with two addresses is one event with two probes
	bin0=$TMP/probedz$$
	if cc -O0 -g -o "$bin0" "$(dirname "$0")/../workloads/probed.c" 2>/dev/null; then
		for s in 'probed_add a b' 'probed_add' 'probed_name name:string' 'probed_add $params' \
			'probed_add:4 sum' 'main n pair.value pair.label:string'; do
			compare_add "$bin0" "$s" " -O0"
		done
	fi
else
	skip probe-add "perf is not installed (Debian: linux-perf)"
fi

# a shared library: a symbol without DWARF of its own name (inet_pton is an
# alias), and DWARF where the debug file is installed (libc6-dbg)
libc=$(grep -w libc /proc/self/maps | head -1 | sed -r 's/.*[[:space:]](\/.*)/\1/')
if have_perf && [ -n "$libc" ]; then
	for d in 'inet_pton' 'inet_pton%return $retval' 'inet_pton %di:u32 x=%si' \
		'__inet_pton af src dst:x64'; do
		perf probe -x "$libc" -D "$d" >"$TMP/D.perf" 2>/dev/null
		if ! grep -q '^[pr]:' "$TMP/D.perf"; then
			skip "probe-D-libc '$d'" "perf probe -D cannot place it here (no libc debug info?)"
			continue
		fi
		"$PCL" probe -x libc -D "$d" >"$TMP/D.pcl" 2>&1
		diff_or_ok "probe-D-libc '$d'" "$TMP/D.perf" "$TMP/D.pcl" "perf probe -D" "pcl probe -D"
	done
	# memcpy: an IFUNC beside a hidden memcpy@GLIBC_2.2.5 that perf does not
	# probe; both warn that the probe hits the resolver
	for d in memcpy strlen; do
		perf probe -x "$libc" -D "$d" >"$TMP/D.perf" 2>/dev/null
		"$PCL" probe -x libc -D "$d" >"$TMP/D.pcl" 2>"$TMP/D.err"
		if ! diff -q "$TMP/D.perf" "$TMP/D.pcl" >/dev/null; then
			diff_or_ok "probe-D-libc-ifunc '$d'" "$TMP/D.perf" "$TMP/D.pcl" "perf probe -D" "pcl probe -D"
		elif grep -q 'GNU indirect function' "$TMP/D.perf" "$TMP/D.err" 2>/dev/null ||
			! perf probe -x "$libc" -D "$d" 2>&1 | grep -q 'GNU indirect function'; then
			ok "probe-D-libc-ifunc '$d'"
		else
			not_ok "probe-D-libc-ifunc '$d'" "perf warns that $d is a GNU indirect function, pcl does not" \
				"$(show "$TMP/D.err")"
		fi
	done
fi

# ---- the messages perf probe prints when adding (perf's shell tests parse them) ----
"$PCL" probe -x "$bin" -a 'probed_name' >"$TMP/msg.out" 2>&1
if grep -q "^  $group:probed_name (on probed_name in $bin)\$" "$TMP/msg.out" &&
	[ "$(tail -n +2 "$TMP/msg.out" | head -n -5 | wc -l)" = 1 ] &&
	grep -q "perf record -e $group:probed_name -aR sleep 1" "$TMP/msg.out"; then
	ok probe-add-message
else
	not_ok probe-add-message "$(show "$TMP/msg.out")"
fi
# the same name again: refused, then _1 with -f
if "$PCL" probe -x "$bin" -a 'probed_name' >"$TMP/dup.out" 2>&1; then
	not_ok probe-duplicate "adding probed_name twice succeeded" "$(show "$TMP/dup.out")"
elif ! grep -q 'already exists' "$TMP/dup.out"; then
	not_ok probe-duplicate "no 'already exists' message" "$(show "$TMP/dup.out")"
elif ! "$PCL" probe -q -f -x "$bin" -a 'probed_name' || ! grep -q "$group/probed_name_1 " $tfs/uprobe_events; then
	not_ok probe-duplicate "-f did not add probed_name_1"
else
	ok probe-duplicate
fi

# ---- hits counted through the tracefs events: the calls the workload makes ----
"$PCL" probe -q -x "$bin" -a 'probed_add%return' -a 'probed_add a b p->value' -a probed_inl \
	>"$TMP/a.out" 2>&1
"$PCL" stat -x, -e "$group:probed_add,$group:probed_add__return,$group:probed_name" \
	-e "$group:probed_inl" -- "$bin" 9 >/dev/null 2>"$TMP/stat.out"
a=$(csv_count "$TMP/stat.out" "$group:probed_add")
r=$(csv_count "$TMP/stat.out" "$group:probed_add__return")
n=$(csv_count "$TMP/stat.out" "$group:probed_name")
i=$(csv_count "$TMP/stat.out" "$group:probed_inl")
if [ "$a" = 9 ] && [ "$r" = 9 ] && [ "$n" = 10 ] && [ "$i" = 1 ]; then
	ok probe-stat-counts
else
	not_ok probe-stat-counts "want probed_add 9, __return 9, probed_name 10, probed_inl 1; got $a $r $n $i" \
		"$(show "$TMP/a.out")" "$(show "$TMP/stat.out")"
fi
# record and script: the fetched arguments, as perf script shows them
"$PCL" record -N -q -o "$TMP/p.data" -e "$group:probed_add" -- "$bin" 4 >/dev/null 2>&1
"$PCL" script -i "$TMP/p.data" >"$TMP/script.out" 2>&1
if [ "$(grep -c 'a=[0-3] b=[0-6] value=40' "$TMP/script.out")" = 4 ] &&
	grep -q 'a=3 b=6 value=40' "$TMP/script.out"; then
	ok probe-record-args
else
	not_ok probe-record-args "want 4 samples with a=i b=2i value=40" "$(show "$TMP/script.out")"
fi
if have_perf; then
	perf script -i "$TMP/p.data" >"$TMP/perf-script.out" 2>/dev/null
	if [ "$(grep -c 'value=40' "$TMP/perf-script.out")" = 4 ]; then
		ok probe-record-perf-reads
	else
		not_ok probe-record-perf-reads "$(show "$TMP/perf-script.out")"
	fi
fi

# ---- list: pcl probe -l and pcl list show the events as perf does ----
"$PCL" probe -l >"$TMP/l.pcl" 2>&1
if have_perf; then
	perf probe -l >"$TMP/l.perf" 2>&1
	grep -F "$group:" "$TMP/l.pcl" >"$TMP/l1" || true
	grep -F "$group:" "$TMP/l.perf" >"$TMP/l2" || true
	diff_or_ok probe-list "$TMP/l2" "$TMP/l1" "perf probe -l" "pcl probe -l"
fi
if "$PCL" list 2>/dev/null | grep -q "^  $group:probed_add .*\[Tracepoint event\]"; then
	ok probe-in-pcl-list
else
	not_ok probe-in-pcl-list "pcl list does not show $group:probed_add"
fi
"$PCL" probe -l "$group:probed_add*" >"$TMP/lf.out" 2>&1
if [ "$(grep -c "$group:" "$TMP/lf.out")" = 2 ]; then
	ok probe-list-filter
else
	not_ok probe-list-filter "want probed_add and probed_add__return" "$(show "$TMP/lf.out")"
fi

# ---- delete: globs, the messages, and a name that matches nothing ----
"$PCL" probe -d "$group:probed_name*" >"$TMP/d.out" 2>&1
if grep -q "^Removed event: $group:probed_name\$" "$TMP/d.out" &&
	grep -q "^Removed event: $group:probed_name_1\$" "$TMP/d.out" &&
	! grep -q "$group/probed_name" $tfs/uprobe_events; then
	ok probe-delete-glob
else
	not_ok probe-delete-glob "$(show "$TMP/d.out")"
fi
if "$PCL" probe -d "$group:nosuch" >"$TMP/d2.out" 2>&1; then
	not_ok probe-delete-none "deleting nothing succeeded"
elif grep -q 'does not hit any event' "$TMP/d2.out"; then
	ok probe-delete-none
else
	not_ok probe-delete-none "$(show "$TMP/d2.out")"
fi
"$PCL" probe -q -d "$group:*"
if [ -z "$(events)" ] && [ "$before" = "$(grep -v "$bin" $tfs/uprobe_events | sort)" ]; then
	ok probe-cleanup
else
	not_ok probe-cleanup "uprobe_events after -d:" "$(cat $tfs/uprobe_events)"
fi

# ---- -L, -V and -F: perf's text ----
if have_perf; then
	for l in probed_add probed_name main probed_add:2-5 probed.c:20-30 probed.c; do
		perf probe -x "$bin" -L "$l" >"$TMP/L.perf" 2>&1
		"$PCL" probe -x "$bin" -L "$l" >"$TMP/L.pcl" 2>&1
		diff_or_ok "probe-L '$l'" "$TMP/L.perf" "$TMP/L.pcl" "perf probe -L" "pcl probe -L"
	done
	for v in probed_add probed_add:4 probed_name probed_name%return 'probed.c:22' probed_inl; do
		perf probe -x "$bin" -V "$v" >"$TMP/V.perf" 2>&1
		"$PCL" probe -x "$bin" -V "$v" >"$TMP/V.pcl" 2>&1
		diff_or_ok "probe-V '$v'" "$TMP/V.perf" "$TMP/V.pcl" "perf probe -V" "pcl probe -V"
	done
	for f in "" "probed*" "--funcs=main"; do
		if [ "$f" = --funcs=main ]; then
			perf probe -x "$bin" $f >"$TMP/F.perf" 2>&1
			"$PCL" probe -x "$bin" $f >"$TMP/F.pcl" 2>&1
		else
			perf probe -x "$bin" -F $f >"$TMP/F.perf" 2>&1
			"$PCL" probe -x "$bin" -F $f >"$TMP/F.pcl" 2>&1
		fi
		diff_or_ok "probe-F '$f'" "$TMP/F.perf" "$TMP/F.pcl" "perf probe -F" "pcl probe -F"
	done
fi

# ---- bad input: one clear line, non-zero, nothing written ----
for bad in 'nosuch_function' 'probed_add:999' 'probed_add nosuchvar' 'probed_add%retrun' \
	'probed_add;x' 'probed_add a:string' '=probed_add' 'probed_add $retval' 'probed_add%return a'; do
	"$PCL" probe -x "$bin" -a "$bad" >"$TMP/bad.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q 'pcl: probe' "$TMP/bad.out" &&
		! crashed "$TMP/bad.out" $rc && [ -z "$(events)" ]; then
		ok "probe-bad '$bad'"
	else
		not_ok "probe-bad '$bad'" "rc=$rc" "$(show "$TMP/bad.out")"
	fi
done
"$PCL" probe -x /nonexistent/bin -a main >"$TMP/bad.out" 2>&1
if [ $? -ne 0 ] && grep -q "target '/nonexistent/bin' not found" "$TMP/bad.out"; then
	ok probe-bad-target
else
	not_ok probe-bad-target "$(show "$TMP/bad.out")"
fi
# -n writes nothing
"$PCL" probe -n -x "$bin" -a probed_add >/dev/null 2>&1
if [ -z "$(events)" ]; then ok probe-dry-run; else not_ok probe-dry-run "$(events)"; fi

# ---- kprobes: the line written is perf's (-D prints it, even without kprobe_events) ----
if have_perf && [ -r /proc/kallsyms ] && grep -q ' _text$' /proc/kallsyms; then
	for d in 'vfs_read %di:u64' 'vfs_read%return $retval' 'x=vfs_read+4 %si' 'grp:y=vfs_read n=%si:x32'; do
		perf probe -D "$d" >"$TMP/D.perf" 2>&1
		"$PCL" probe -D "$d" >"$TMP/D.pcl" 2>&1
		diff_or_ok "probe-kprobe-D '$d'" "$TMP/D.perf" "$TMP/D.pcl" "perf probe -D" "pcl probe -D"
	done
fi
# a kernel line or variable needs the kernel's DWARF, which pcl does not read
"$PCL" probe -D 'vfs_read count' >"$TMP/kd.out" 2>&1
if [ $? -ne 0 ] && grep -q '^Failed to find the path for the kernel' "$TMP/kd.out"; then
	ok probe-kprobe-dwarf-refused
else
	not_ok probe-kprobe-dwarf-refused "$(show "$TMP/kd.out")"
fi

# ---- kprobes: only where the kernel has them ----
if [ ! -e $tfs/kprobe_events ]; then
	"$PCL" probe -a vfs_read >"$TMP/k.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'kprobe' "$TMP/k.out"; then
		ok probe-kprobe-refused
	else
		not_ok probe-kprobe-refused "rc=$rc" "$(show "$TMP/k.out")"
	fi
	skip probe-kprobe "this kernel has no kprobe_events ($tfs/kprobe_events) and no kprobe PMU"
else
	"$PCL" probe -q -a 'pcltest=vfs_read %di' >"$TMP/k.out" 2>&1
	cnt=$("$PCL" stat -x, -e probe:pcltest -- cat /proc/self/stat 2>&1 >/dev/null | cut -d, -f1)
	"$PCL" probe -l 'probe:pcltest' >"$TMP/kl.out" 2>&1
	"$PCL" probe -q -d probe:pcltest
	if grep -q 'probe:pcltest' "$TMP/kl.out" && [ "${cnt:-0}" -ge 1 ] 2>/dev/null &&
		! grep -q 'probe/pcltest' $tfs/kprobe_events; then
		ok probe-kprobe
	else
		not_ok probe-kprobe "count '$cnt'" "$(show "$TMP/k.out")" "$(show "$TMP/kl.out")"
	fi
fi

# ---- FUNC+OFF past the function's end: refused (as perf), not a probe in the next function ----
size=$(nm -S "$bin" 2>/dev/null | awk '$4 == "probed_add" { print $2 }')
size=$((16#${size:-0}))
if [ -n "$size" ] && [ "$size" -gt 0 ] 2>/dev/null; then
	"$PCL" probe -x "$bin" -D "probed_add+$size" >"$TMP/off1.out" 2>&1
	rc1=$?
	"$PCL" probe -x "$bin" -D "probed_add+$((size + 1))" >"$TMP/off2.out" 2>&1
	rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -ne 0 ] && ! grep -q '^p:' "$TMP/off2.out"; then
		ok probe-offset-past-end
	else
		not_ok probe-offset-past-end "size $size: +size rc=$rc1 (want 0), +size+1 rc=$rc2 (want non-zero)" \
			"$(show "$TMP/off2.out")"
	fi
else
	skip probe-offset-past-end "no size for probed_add in nm -S"
fi

# ---- FUNC@SRC: only SRC's FUNC; a SRC that has no FUNC is an error (as perf) ----
printf 'static int f(int x){return x+1;}\nint g1(int x){return f(x);}\n' >"$TMP/s1.c"
printf 'static int f(int x){return x*2;}\nint g2(int x){return f(x);}\nint g1(int);\nint main(int c,char**v){(void)v;return g1(c)+g2(c);}\n' >"$TMP/s2.c"
if cc -O0 -g -o "$TMP/twof" "$TMP/s1.c" "$TMP/s2.c" 2>/dev/null; then
	n1=$("$PCL" probe -x "$TMP/twof" -D 'f@s1.c' 2>/dev/null | grep -c '^p:')
	"$PCL" probe -x "$TMP/twof" -D 'f@nosuch.c' >"$TMP/src.out" 2>&1
	rc=$?
	if [ "$n1" = 1 ] && [ $rc -ne 0 ] && ! grep -q '^p:' "$TMP/src.out"; then
		ok probe-func-at-src
	else
		not_ok probe-func-at-src "f@s1.c: $n1 points (want 1); f@nosuch.c rc=$rc (want non-zero, no point)" \
			"$(show "$TMP/src.out")"
	fi
else
	skip probe-func-at-src "no C compiler"
fi
