#!/usr/bin/env bash
# The pager, as perf and git have it: on a terminal (a pseudo-terminal made
# by script(1) here), report, script, list, annotate, diff and help write
# through PCL_PAGER / PERF_PAGER / PAGER / less; --no-pager, an empty pager,
# 'cat' and pipes mean none; pcl waits for the pager and exits with its own
# status; errors reach the terminal. The pager is a fake that records what
# it was given.
. "$(dirname "$0")/lib.sh"

if ! command -v script >/dev/null 2>&1; then
	skip pager "script(1) from util-linux is not installed (no pseudo-terminal to test on)"
	exit 0
fi

# The fake pager: its input and $LESS into $TMP/paged.N (N counts the runs).
cat >"$TMP/fakepager" <<EOF
#!/bin/sh
n=\$(ls "$TMP" | grep -c '^paged\.')
{ echo "LESS=\${LESS-unset}"; cat; } >"$TMP/paged.\$n"
EOF
# The same, slow: pcl must still be there when it finishes.
cat >"$TMP/slowpager" <<EOF
#!/bin/sh
cat >"$TMP/slow.in"; sleep 1; echo done >"$TMP/slow.done"
EOF
mkdir -p "$TMP/bin"
# A 'cat' that says it ran: PAGER=cat must not run any pager at all.
cat >"$TMP/bin/cat" <<EOF
#!/bin/sh
echo ran >"$TMP/cat.ran"
exec /bin/cat "\$@"
EOF
chmod +x "$TMP/fakepager" "$TMP/slowpager" "$TMP/bin/cat"

# on_tty TAG [VAR=VALUE...] -- CMD...: CMD on a pseudo-terminal; what the
# terminal showed in $TMP/TAG.tty, CMD's exit status in $RC. The pager
# variables are cleared first; the VAR=VALUE given are set.
on_tty() {
	local tag=$1 envs=() q
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -f "$TMP"/paged.* "$TMP/cat.ran"
	q=$(printf '%q ' "$@")
	timeout -k 5 30 env -u PCL_PAGER -u PERF_PAGER -u PAGER -u LESS "${envs[@]}" \
		script -qec "$q; echo \"rc=\$?\" >$TMP/$tag.rc" /dev/null </dev/null >"$TMP/$tag.tty" 2>&1
	RC=$(sed -n 's/^rc=//p' "$TMP/$tag.rc" 2>/dev/null)
	RC=${RC:-none}
}
paged() { ls "$TMP"/paged.* 2>/dev/null | wc -l; }

# what the pipe gives, to compare with what the pager got
"$PCL" list sw >"$TMP/list.out" 2>/dev/null
if [ ! -s "$TMP/list.out" ]; then
	not_ok pager-list "pcl list sw printed nothing"
	exit 0
fi

# --- which pager, and what it gets -------------------------------------------------
on_tty list PAGER="$TMP/fakepager" -- "$PCL" list sw
if [ "$(paged)" = 1 ] && [ "$RC" = 0 ] && diff <(tail -n +2 "$TMP/paged.0") "$TMP/list.out" >/dev/null &&
	grep -qx 'LESS=FRX' "$TMP/paged.0"; then
	ok pager-list
else
	not_ok pager-list "pcl list sw on a terminal, PAGER=fakepager: want the list in the pager, LESS=FRX, exit 0; exit $RC, pager runs $(paged):" \
		"$(show "$TMP/paged.0" 5 2>/dev/null)" "terminal:" "$(show "$TMP/list.tty" 5)"
fi

for var in PCL_PAGER PERF_PAGER; do
	on_tty order PAGER=/bin/false "$var=$TMP/fakepager" LESS=abc -- "$PCL" list sw
	if [ "$(paged)" = 1 ] && grep -qx 'LESS=abc' "$TMP/paged.0"; then
		ok pager-$var
	else
		not_ok pager-$var "$var=fakepager PAGER=false LESS=abc: want fakepager run once with LESS kept; $(paged) runs:" \
			"$(show "$TMP/paged.0" 3 2>/dev/null)" "$(show "$TMP/order.tty" 5)"
	fi
done

# --- no pager ------------------------------------------------------------------------
nopager() { # NAME what... -- on_tty args: no pager ran, the list reached the terminal
	local name=$1 what=$2
	shift 2
	on_tty none "$@"
	if [ "$(paged)" = 0 ] && [ ! -e "$TMP/cat.ran" ] && grep -q 'task-clock' "$TMP/none.tty" && [ "$RC" = 0 ]; then
		ok "$name"
	else
		not_ok "$name" "$what: want no pager and the list on the terminal; exit $RC, $(paged) pager runs, cat ran: $([ -e "$TMP/cat.ran" ] && echo yes || echo no)" \
			"$(show "$TMP/none.tty" 5)"
	fi
}
nopager pager-no-pager "pcl --no-pager list" PAGER="$TMP/fakepager" -- "$PCL" --no-pager list sw
nopager pager-empty "PAGER=''" PAGER= -- "$PCL" list sw
nopager pager-cat "PAGER=cat" PAGER=cat PATH="$TMP/bin:$PATH" -- "$PCL" list sw
nopager pager-pcl-cat "PCL_PAGER=cat over PAGER=fakepager" PCL_PAGER=cat PAGER="$TMP/fakepager" PATH="$TMP/bin:$PATH" -- \
	"$PCL" list sw

# a pipe: no pager, even with one named
on_tty pipe PAGER="$TMP/fakepager" -- sh -c "\"$PCL\" list sw | /bin/cat >$TMP/piped.out"
if [ "$(paged)" = 0 ] && cmp -s "$TMP/piped.out" "$TMP/list.out"; then ok pager-pipe; else
	not_ok pager-pipe "pcl list sw | cat on a terminal: want no pager and the whole list in the pipe; $(paged) pager runs"
fi

# stat writes to stderr and runs a command: never paged
on_tty stat PAGER="$TMP/fakepager" -- "$PCL" stat -e task-clock -- true
if [ "$(paged)" = 0 ] && grep -q 'task-clock' "$TMP/stat.tty" && [ "$RC" = 0 ]; then ok pager-stat-none; else
	not_ok pager-stat-none "pcl stat on a terminal: want no pager, the counts on the terminal; exit $RC, $(paged) pager runs:" \
		"$(show "$TMP/stat.tty" 8)"
fi

# an export to a file (-o): nothing for a pager to show
on_tty export PAGER="$TMP/fakepager" -- "$PCL" report -i "$TMP/no-such.data" --format folded -o "$TMP/out.folded"
if [ "$(paged)" = 0 ]; then ok pager-output-file; else
	not_ok pager-output-file "pcl report --format folded -o FILE on a terminal: want no pager; $(paged) pager runs"
fi

# --- exit status, errors, waiting --------------------------------------------------------
on_tty err PAGER="$TMP/fakepager" -- "$PCL" report -i "$TMP/no-such.data"
if [ "$RC" = 1 ] && grep -q "^pcl: .*no-such.data" "$TMP/err.tty" && ! grep -qs 'no-such' "$TMP"/paged.*; then
	ok pager-error-status
else
	not_ok pager-error-status "pcl report -i MISSING through a pager: want exit 1 (pcl's) and the error on the terminal, not in the pager; exit $RC:" \
		"terminal:" "$(show "$TMP/err.tty" 5)"
fi

rm -f "$TMP/slow.done"
on_tty slow PAGER="$TMP/slowpager" -- sh -c "\"$PCL\" list sw; test -e $TMP/slow.done"
if [ "$RC" = 0 ] && cmp -s "$TMP/slow.in" "$TMP/list.out"; then ok pager-waits; else
	not_ok pager-waits "PAGER that sleeps 1 s before it ends: pcl returned before it (exit $RC of 'test -e done')"
fi

# a pager that quits early (q in less): pcl stops quietly, exit 0
on_tty quit PAGER="head -c 100 >/dev/null" -- "$PCL" list
if [ "$RC" = 0 ] && ! grep -q 'pcl:' "$TMP/quit.tty"; then ok pager-quit-early; else
	not_ok pager-quit-early "pcl list with a pager that reads 100 bytes and quits: want exit 0 and no message; exit $RC:" \
		"$(show "$TMP/quit.tty" 5)"
fi

# --- every reading command pages -------------------------------------------------------
data=$TMP/perf.data
"$PCL" record -q -e cpu-clock -c 100000 -o "$data" -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
	>/dev/null 2>"$TMP/record.err"
if [ ! -s "$data" ]; then
	not_ok pager-commands "pcl record made no file to page reports of:" "$(show "$TMP/record.err")"
	exit 0
fi
# the pager may get colours (report's percentages) that a pipe does not
nocolor() { tail -n +2 "$1" | sed 's/\x1b\[[0-9;]*m//g'; }
# (report on a terminal opens its browser, as perf's: its text is --stdio's)
for nc in "report:report --stdio -i $data" "script:script -i $data" "annotate:annotate -i $data" \
	"diff:diff $data $data" "help:help" "help-events:help events"; do
	name=pager-${nc%%:*} c=${nc#*:}
	# shellcheck disable=SC2086
	"$PCL" $c >"$TMP/cmd.out" 2>/dev/null
	# shellcheck disable=SC2086
	on_tty cmd PAGER="$TMP/fakepager" -- "$PCL" $c
	if [ "$(paged)" = 1 ] && [ -s "$TMP/cmd.out" ] && diff <(nocolor "$TMP/paged.0") "$TMP/cmd.out" >/dev/null; then
		ok "$name"
	else
		not_ok "$name" "pcl $c on a terminal: want its whole output (as through a pipe) in the pager; exit $RC, $(paged) pager runs:" \
			"pager got:" "$(show "$TMP/paged.0" 5 2>/dev/null)" "pipe got:" "$(show "$TMP/cmd.out" 5)"
	fi
done
