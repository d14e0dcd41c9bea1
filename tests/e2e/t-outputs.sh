#!/usr/bin/env bash
# Where output goes and what input is trusted:
# - record -o keeps only a non-empty regular file as FILE.old; a character
#   device or a FIFO gets a pipe-mode stream and stays what it was; a
#   symlink stays, its target is kept and replaced; -o - keeps the
#   command's stdout out of the stream;
# - report/diff -o replace only a regular file (a symlink's target, mode
#   kept), anything else is written straight through;
# - report/script/diff refuse a file another user owns unless -f, as perf,
#   and a JIT map too (perf 6.1 no longer checks that one);
# - a failed write (a full disk: our own copy of /dev/full) is an error,
#   a reader that goes away (| head) is not; numbers that do not fit are refused.
# The real /dev/null and /dev/full are never an -o target here: mknod copies are.
. "$(dirname "$0")/lib.sh"

if ! has_record; then
	skip outputs "this pcl has no record command"
	exit 0
fi
hot=$(workload hot) || {
	skip outputs "cannot build the hot workload"
	exit 0
}
if ! mknod "$TMP/null" c 1 3 || ! mknod "$TMP/full" c 1 7; then
	skip outputs "cannot mknod (not root?)"
	exit 0
fi

# kind PATH: what is at PATH, without following a link ("character special
# file 1,3", "fifo", "symbolic link -> T", "regular file 0640", "none").
kind() {
	if [ -L "$1" ]; then
		echo "symbolic link -> $(readlink "$1")"
	elif [ -e "$1" ]; then
		stat -c '%F %t,%T %a' "$1" | sed -E 's/^(regular( empty)? file) [0-9a-f]+,[0-9a-f]+/\1/; s/^(fifo) [0-9a-f]+,[0-9a-f]+ [0-7]+/\1/; s/^(character special file [0-9a-f]+,[0-9a-f]+) [0-7]+/\1/'
	else
		echo none
	fi
}
# same_kind NAME PATH WANT DETAILS...: ok if PATH is still WANT and no PATH.old appeared.
same_kind() {
	local name=$1 path=$2 want=$3 got
	shift 3
	got=$(kind "$path")
	if [ "$got" = "$want" ] && [ ! -e "$path.old" ] && [ ! -L "$path.old" ]; then
		ok "$name"
	else
		not_ok "$name" "want '$path' to stay '$want' with no .old; it is '$got', .old: $(kind "$path.old")" "$@"
	fi
}

# --- record -o into a character device -------------------------------------------------------
run rec-null "$PCL" record -q -o "$TMP/null" -- true
same_kind record-o-chardev "$TMP/null" "character special file 1,3" "pcl record -o (a c 1 3 node) -- true: exit $RC" "$(show "$TMP/rec-null.err")"
run rec-full "$PCL" record -q -o "$TMP/full" -- true
if [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] && grep -q "No space left" "$TMP/rec-full.err"; then
	same_kind record-o-full "$TMP/full" "character special file 1,7"
else
	not_ok record-o-full "pcl record -o (a c 1 7 node): exit $RC (want 1, 'No space left' said)" "$(show "$TMP/rec-full.err")"
fi

# --- record -o into a FIFO: a stream both readers take ---------------------------------------
mkfifo "$TMP/fifo"
timeout 30 cat "$TMP/fifo" >"$TMP/fifo.stream" &
reader=$!
run_long rec-fifo 30 "$PCL" record -q -F 2000 -o "$TMP/fifo" -- "$hot" 200
wait "$reader"
run pcl-fifo "$PCL" report --stdio -i - <"$TMP/fifo.stream"
PRC=$RC
if have_perf; then
	run perf-fifo perf report --stdio -i - <"$TMP/fifo.stream"
else
	RC=0
	echo "# Samples: (no perf)" >"$TMP/perf-fifo.out"
fi
if [ "$(head -c 8 "$TMP/fifo.stream")" = PERFILE2 ] && [ "$PRC" -eq 0 ] && [ "$RC" -eq 0 ] &&
	grep -q "^# Samples: " "$TMP/pcl-fifo.out" && grep -q "^# Samples: " "$TMP/perf-fifo.out" &&
	! grep -qiE "error|incompatible|warning" "$TMP/pcl-fifo.err" "$TMP/perf-fifo.err" 2>/dev/null; then
	same_kind record-o-fifo "$TMP/fifo" fifo
else
	not_ok record-o-fifo "the stream read from the FIFO ($(wc -c <"$TMP/fifo.stream") bytes, starts '$(head -c 8 "$TMP/fifo.stream" | tr -cd '[:print:]')');" \
		"pcl report -i -: exit $PRC, perf report -i -: exit $RC" "$(show "$TMP/rec-fifo.err")" \
		"$(show "$TMP/pcl-fifo.err")" "$(show "$TMP/perf-fifo.err" 2>/dev/null)"
fi

# --- record -o through a symlink: the link stays, its target is kept and replaced -----------
echo "the old target" >"$TMP/target"
ln -s target "$TMP/link"
run rec-link "$PCL" record -q -o "$TMP/link" -- true
if [ "$RC" -eq 0 ] && [ "$(kind "$TMP/link")" = "symbolic link -> target" ] && [ ! -e "$TMP/link.old" ] &&
	[ "$(cat "$TMP/target.old" 2>/dev/null)" = "the old target" ] && [ "$(head -c 8 "$TMP/target")" = PERFILE2 ]; then
	ok record-o-symlink
else
	not_ok record-o-symlink "pcl record -o LINK (-> a non-empty file): exit $RC; want the link kept," \
		"the target's old bytes in target.old and a new recording in the target" "$(ls -l "$TMP")" "$(show "$TMP/rec-link.err")"
fi

# --- an empty regular file is reused, a directory refused, neither renamed ------------------
: >"$TMP/empty.data"
run rec-empty "$PCL" record -q -o "$TMP/empty.data" -- true
if [ "$RC" -eq 0 ] && [ ! -e "$TMP/empty.data.old" ] && [ "$(head -c 8 "$TMP/empty.data")" = PERFILE2 ]; then
	ok record-o-empty-file
else
	not_ok record-o-empty-file "pcl record -o EMPTY: exit $RC; want no .old (perf keeps only a non-empty file)" "$(ls -l "$TMP")"
fi
mkdir "$TMP/dir"
run rec-dir "$PCL" record -q -o "$TMP/dir" -- true
if [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] && [ -s "$TMP/rec-dir.err" ]; then
	same_kind record-o-dir "$TMP/dir" "directory 0,0 755"
else
	not_ok record-o-dir "pcl record -o DIR: exit $RC (want an error)" "$(show "$TMP/rec-dir.err")"
fi

# --- -o -: the command's stdout goes to stderr, not into the stream -------------------------
"$PCL" record -q -o - -- echo HELLO 2>"$TMP/echo.err" | "$PCL" report --stdio -i - >"$TMP/echo.out" 2>"$TMP/echo.rep.err"
st=("${PIPESTATUS[@]}")
if [ "${st[0]}" -eq 0 ] && [ "${st[1]}" -eq 0 ] && grep -qx HELLO "$TMP/echo.err" && ! grep -q HELLO "$TMP/echo.out"; then
	ok record-stdout-not-in-stream
else
	not_ok record-stdout-not-in-stream "pcl record -q -o - -- echo HELLO | pcl report -i -: exit ${st[*]} (want 0 0), HELLO on record's stderr" \
		"$(show "$TMP/echo.err")" "$(show "$TMP/echo.rep.err")"
fi

# ... but /dev/null as both -o and stdout holds no stream: the output sent there stays there, as perf's
"$PCL" record -q -o /dev/null -- echo HELLO >/dev/null 2>"$TMP/echonull.err"
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q HELLO "$TMP/echonull.err"; then
	ok record-stdout-null-stays
else
	not_ok record-stdout-null-stays "pcl record -q -o /dev/null -- echo HELLO >/dev/null: exit $rc (want 0), HELLO not on stderr:" \
		"$(show "$TMP/echonull.err")"
fi

# ... and so with a FIFO -o that is also pcl's stdout
mkfifo "$TMP/fifo2"
timeout 30 cat "$TMP/fifo2" >"$TMP/fifo2.stream" &
reader=$!
# (the stream holds the command line: the word printed is not in it)
# shellcheck disable=SC2094 # the point: -o and stdout are the same FIFO
timeout 30 "$PCL" record -q -o "$TMP/fifo2" -- sh -c 'echo HEL""LO' >"$TMP/fifo2" 2>"$TMP/echo2.err"
rc=$?
wait "$reader"
run echo2-rep "$PCL" report --stdio -i - <"$TMP/fifo2.stream"
if [ "$rc" -eq 0 ] && [ "$RC" -eq 0 ] && grep -qx HELLO "$TMP/echo2.err" && ! grep -q HELLO "$TMP/fifo2.stream"; then
	ok record-stdout-not-in-fifo-stream
else
	not_ok record-stdout-not-in-fifo-stream "pcl record -q -o FIFO -- sh -c 'echo HEL\"\"LO' >FIFO: exit $rc, the stream read back: exit $RC" \
		"$(show "$TMP/echo2.err")" "$(show "$TMP/echo2-rep.err")"
fi

# --- report/diff -o: only a regular file is replaced by rename -------------------------------
F=$TMP/r.data
run rec-r "$PCL" record -q -F 2000 -o "$F" -- "$hot" 100
for node in null full; do
	run "fold-$node" "$PCL" report -i "$F" --format=folded -o "$TMP/$node"
	want=0
	[ $node = full ] && want=1
	t=$(kind "$TMP/$node")
	if [ "$RC" -eq "$want" ] && case $t in "character special file"*) true ;; *) false ;; esac &&
		{ [ $node = null ] || grep -q "No space left" "$TMP/fold-$node.err"; }; then
		ok "report-o-$node"
	else
		not_ok "report-o-$node" "pcl report --format=folded -o (a $node node): exit $RC (want $want), it is now '$t'" "$(show "$TMP/fold-$node.err")"
	fi
done
printf 'old\n' >"$TMP/rtarget"
chmod 640 "$TMP/rtarget"
ln -s rtarget "$TMP/rlink"
run fold-link "$PCL" report -i "$F" --format=folded -o "$TMP/rlink"
if [ "$RC" -eq 0 ] && [ "$(kind "$TMP/rlink")" = "symbolic link -> rtarget" ] &&
	[ "$(kind "$TMP/rtarget")" = "regular file 640" ] && grep -q "hot" "$TMP/rtarget"; then
	ok report-o-symlink
else
	not_ok report-o-symlink "pcl report --format=folded -o LINK: exit $RC; want the link kept, its target replaced with mode 640" \
		"link: $(kind "$TMP/rlink"), target: $(kind "$TMP/rtarget")" "$(show "$TMP/fold-link.err")"
fi
run diff-link "$PCL" diff "$F" "$F" --format=flamegraph -o "$TMP/rlink"
if [ "$RC" -eq 0 ] && [ "$(kind "$TMP/rlink")" = "symbolic link -> rtarget" ] && grep -q "<svg" "$TMP/rtarget"; then
	ok diff-o-symlink
else
	not_ok diff-o-symlink "pcl diff --format=flamegraph -o LINK: exit $RC; link: $(kind "$TMP/rlink")" "$(show "$TMP/diff-link.err")"
fi
mkfifo "$TMP/rfifo"
timeout 30 cat "$TMP/rfifo" >"$TMP/rfifo.out" &
reader=$!
run fold-fifo "$PCL" report -i "$F" --format=folded -o "$TMP/rfifo"
wait "$reader"
if [ "$RC" -eq 0 ] && grep -q hot "$TMP/rfifo.out"; then
	same_kind report-o-fifo "$TMP/rfifo" fifo
else
	not_ok report-o-fifo "pcl report --format=folded -o FIFO: exit $RC, the reader got $(wc -c <"$TMP/rfifo.out") bytes" "$(show "$TMP/fold-fifo.err")"
fi

# --- inputs another user owns: perf's rule, -f to override ----------------------------------
# A world-readable directory: $TMP itself is private.
chmod 711 "$TMP"
mkdir -m 755 "$TMP/pub"
cp "$F" "$TMP/pub/root.data"
cp "$F" "$TMP/pub/other.data"
chmod 644 "$TMP/pub/root.data" "$TMP/pub/other.data"
chown 4242 "$TMP/pub/other.data"
cp "$TMP/pub/other.data" "$TMP/pub/nobody.data"
chown nobody "$TMP/pub/nobody.data"
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# owner CASE WANT_RC CMD...: WANT_RC 0 (read) or 1 (refused, saying why and naming -f).
owner() {
	local name=$1 want=$2
	shift 2
	run "own-$name" "$@"
	if [ "$want" -eq 0 ] && [ "$RC" -eq 0 ] && [ -s "$TMP/own-$name.out" ]; then
		ok "input-owner-$name"
	elif [ "$want" -ne 0 ] && [ "$RC" -eq "$want" ] && grep -q "owned by another user" "$TMP/own-$name.err" &&
		grep -q -- "-f" "$TMP/own-$name.err"; then
		ok "input-owner-$name"
	else
		not_ok "input-owner-$name" "$*: exit $RC (want $want)" "$(show "$TMP/own-$name.err")"
	fi
}
if command -v setpriv >/dev/null 2>&1 && "${NOBODY[@]}" true 2>/dev/null; then
	owner nobody-reads-root 0 "${NOBODY[@]}" "$PCL" report --stdio -i "$TMP/pub/root.data"
	owner nobody-reads-other 1 "${NOBODY[@]}" "$PCL" report --stdio -i "$TMP/pub/other.data"
	owner nobody-reads-other-f 0 "${NOBODY[@]}" "$PCL" report --stdio -f -i "$TMP/pub/other.data"
	if have_perf; then
		# the oracle agrees on both sides of the rule
		run perf-own-a "${NOBODY[@]}" perf report --stdio -i "$TMP/pub/root.data"
		a=$RC
		run perf-own-b "${NOBODY[@]}" perf report --stdio -i "$TMP/pub/other.data"
		if [ "$a" -eq 0 ] && [ "$RC" -ne 0 ] && grep -q "not owned by current user or root" "$TMP/perf-own-b.err"; then
			ok input-owner-perf-agrees
		else
			not_ok input-owner-perf-agrees "perf as nobody: root's file exit $a (want 0), uid 4242's exit $RC (want refused)" \
				"$(show "$TMP/perf-own-b.err")"
		fi
	fi
else
	skip input-owner-nobody "setpriv cannot run a command as nobody here"
fi
owner root-reads-nobody 1 "$PCL" report --stdio -i "$TMP/pub/nobody.data"
owner root-reads-nobody-f 0 "$PCL" report --stdio --force -i "$TMP/pub/nobody.data"
owner script 1 "$PCL" script -i "$TMP/pub/nobody.data"
owner script-f 0 "$PCL" script -f -i "$TMP/pub/nobody.data"
owner diff 1 "$PCL" diff "$F" "$TMP/pub/nobody.data"
owner diff-f 0 "$PCL" diff -f "$F" "$TMP/pub/nobody.data"
# stat report too (perf stat report refuses it, and has no -f)
"$PCL" stat record -o "$TMP/pub/nobody-stat.data" -e task-clock -- true 2>/dev/null
chown nobody "$TMP/pub/nobody-stat.data"
owner stat-report 1 "$PCL" stat report -i "$TMP/pub/nobody-stat.data"
# (its counts go to stderr, as pcl stat's)
run own-stat-report-f "$PCL" stat report -f -i "$TMP/pub/nobody-stat.data"
if [ "$RC" -eq 0 ] && grep -q "task-clock" "$TMP/own-stat-report-f.err"; then
	ok input-owner-stat-report-f
else
	not_ok input-owner-stat-report-f "pcl stat report -f -i FILE-OF-NOBODY: exit $RC (want 0 and the counts)" \
		"$(show "$TMP/own-stat-report-f.err")"
fi
# a stream on stdin is the caller's choice: not checked (nor by perf)
cp "$TMP/fifo.stream" "$TMP/pub/nobody.stream"
chown nobody "$TMP/pub/nobody.stream"
owner stdin 0 sh -c "\"\$0\" report --stdio -i - <'$TMP/pub/nobody.stream'" "$PCL"

# --- export -o replaces only a file this user may write -------------------------------------
# rename needs only the directory: in a shared (world-writable, not sticky)
# one, another user's file, or a read-only one, would be replaced; '>' refuses
if command -v setpriv >/dev/null 2>&1 && "${NOBODY[@]}" true 2>/dev/null; then
	mkdir -m 777 "$TMP/shared"
	printf 'keep\n' >"$TMP/shared/roots.folded"
	chmod 644 "$TMP/shared/roots.folded"
	run ro-export "${NOBODY[@]}" "$PCL" report -i "$TMP/pub/root.data" --format=folded -o "$TMP/shared/roots.folded"
	if [ "$RC" -eq 1 ] && [ "$(cat "$TMP/shared/roots.folded")" = keep ] &&
		grep -q "Permission denied" "$TMP/ro-export.err" && [ "$(kind "$TMP/shared/roots.folded")" = "regular file 644" ]; then
		ok report-o-not-writable
	else
		not_ok report-o-not-writable "as nobody, pcl report --format=folded -o ROOTS-FILE (in a world-writable directory): exit $RC (want 1)," \
			"the file is now '$(kind "$TMP/shared/roots.folded")' holding '$(head -c 40 "$TMP/shared/roots.folded")' (want root's 'keep')" \
			"$(show "$TMP/ro-export.err")"
	fi
else
	skip report-o-not-writable "setpriv cannot run a command as nobody here"
fi

# --- a JIT map another user owns gives no symbols, said once; -f trusts it ------------------
jit=$(workload jitmap)
run_long rec-jit 30 "$PCL" record -q -o "$TMP/jit.data" -- "$jit"
read -r jpid jaddr <"$TMP/rec-jit.out" 2>/dev/null
if [ "$RC" -eq 77 ] || [ -z "${jaddr:-}" ]; then
	skip jit-map-owner "the jit workload runs on x86-64 only (exit $RC)"
elif [ -e "/tmp/perf-$jpid.map" ]; then
	skip jit-map-owner "/tmp/perf-$jpid.map is already there"
else
	map=/tmp/perf-$jpid.map
	printf '%x 10 jit_spin_loop\n' "0x$jaddr" >"$map"
	chown nobody "$map"
	run jit-nobody "$PCL" report --stdio -i "$TMP/jit.data"
	run jit-force "$PCL" report --stdio -f -i "$TMP/jit.data"
	run jit-script "$PCL" script -i "$TMP/jit.data"
	s_rc=$RC
	chown root "$map"
	run jit-root "$PCL" report --stdio -i "$TMP/jit.data"
	rm -f "$map"
	if ! grep -q jit_spin_loop "$TMP/jit-nobody.out" &&
		[ "$(grep -c "ignored 1 JIT symbol map owned by another user" "$TMP/jit-nobody.err")" = 1 ] &&
		! grep -q jit_spin_loop "$TMP/jit-script.out" && [ "$s_rc" -eq 0 ] &&
		grep -q "ignored 1 JIT symbol map" "$TMP/jit-script.err"; then
		ok jit-map-not-owned
	else
		not_ok jit-map-not-owned "a perf-PID.map owned by nobody, read as root: want no jit_spin_loop and one warning" \
			"$(show "$TMP/jit-nobody.out" 20)" "$(show "$TMP/jit-nobody.err")" "$(show "$TMP/jit-script.err")"
	fi
	if grep -q jit_spin_loop "$TMP/jit-force.out" && ! grep -q "JIT symbol map" "$TMP/jit-force.err"; then
		ok jit-map-force
	else
		not_ok jit-map-force "with -f: want jit_spin_loop, no warning" "$(show "$TMP/jit-force.out" 20)" "$(show "$TMP/jit-force.err")"
	fi
	if grep -q jit_spin_loop "$TMP/jit-root.out" && [ ! -s "$TMP/jit-root.err" ]; then
		ok jit-map-own
	else
		not_ok jit-map-own "a map root owns: want jit_spin_loop, no warning" "$(show "$TMP/jit-root.out" 20)" "$(show "$TMP/jit-root.err")"
	fi
fi

# --- failed writes and readers that go away --------------------------------------------------
run list-full sh -c "\"$PCL\" list >'$TMP/full'"
if [ "$RC" -eq 1 ] && grep -q "No space left" "$TMP/list-full.err"; then
	ok list-write-error
else
	not_ok list-write-error "pcl list > (a full device): exit $RC (want 1 and the error said)" "$(show "$TMP/list-full.err")"
fi
run stat-full "$PCL" stat -e task-clock -o "$TMP/full" -- true
if [ "$RC" -eq 1 ] && grep -q "No space left" "$TMP/stat-full.err"; then
	same_kind stat-o-write-error "$TMP/full" "character special file 1,7"
else
	not_ok stat-o-write-error "pcl stat -o (a full device) -- true: exit $RC (want 1 and the error said)" "$(show "$TMP/stat-full.err")"
fi
# A reader that has closed its end before pcl starts: a deterministic EPIPE.
for c in "report --stdio -i $F" "report --format=folded -i $F" "list"; do
	name=$(echo "$c" | awk '{ print $1 ($2 ~ /format/ ? "-export" : "") }')
	# shellcheck disable=SC2086 # the command's words
	(sleep 0.3; exec timeout 30 "$PCL" $c) 2>"$TMP/pipe.err" | (exec 0<&-; sleep 1)
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/pipe.err" ]; then
		ok "$name-closed-pipe-quiet"
	else
		not_ok "$name-closed-pipe-quiet" "pcl $c | (a reader that closed): exit $rc (want 0, no message)" "$(show "$TMP/pipe.err")"
	fi
done

# --- numbers that do not fit are refused, not truncated -------------------------------------
for a in "-m 4294967296" "-m 1048576" "-c -1" "-c 99999999999999999999" "-F 4294967296"; do
	# shellcheck disable=SC2086
	run num "$PCL" record -q $a -o "$TMP/num.data" -- true
	if [ "$RC" -eq 2 ] && [ -s "$TMP/num.err" ]; then
		ok "record-number-refused-${a// /}"
	else
		not_ok "record-number-refused-${a// /}" "pcl record $a: exit $RC (want 2, a usage error)" "$(show "$TMP/num.err")"
	fi
done
