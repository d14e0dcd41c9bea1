#!/usr/bin/env bash
# Bash completion (scripts/pcl-completion.bash), sourced in bash and called
# with COMP_WORDS/COMP_CWORD/COMP_LINE set as bash sets them: commands from
# 'pcl --list-cmds', options from 'pcl CMD --list-opts' (the command's own
# option table: every name it prints is one the command accepts), events
# from 'pcl list --raw-dump' or, where that is missing, 'pcl list'.
. "$(dirname "$0")/lib.sh"

root="$(cd "$(dirname "$0")/../.." && pwd)"
script=$root/scripts/pcl-completion.bash
mkdir -p "$TMP/bin"
ln -s "$PCL" "$TMP/bin/pcl"

# complete LINE: the completions of LINE (cursor at its end), one per line,
# sorted. Bash splits the words at COMP_WORDBREAKS as it does for a real
# completion; PCL_BIN is the pcl found first on PATH.
complete_line() {
	PATH="${PCL_BIN:-$TMP/bin}:$PATH" bash -c '
		. "$1" || exit 1
		COMP_LINE=$2 COMP_POINT=${#2}
		# the words as readline splits them: blanks, and COMP_WORDBREAKS
		# characters (: =) as words of their own
		read -ra COMP_WORDS <<<"$(sed -E "s/([:=])/ \\1 /g" <<<"$2")"
		COMP_CWORD=${#COMP_WORDS[@]}
		if [[ $2 == *" " ]]; then COMP_WORDS+=(""); else COMP_CWORD=$((COMP_CWORD - 1)); fi
		_pcl pcl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$1" 2>"$TMP/complete.err" | sort
}
# expect NAME LINE WORD...: the completions of LINE are exactly WORD...
expect() {
	local name=$1 line=$2 want got
	shift 2
	want=$(printf '%s\n' "$@" | sort)
	got=$(complete_line "$line")
	if [ "$got" = "$want" ]; then ok "$name"; else
		not_ok "$name" "completing '$line': want [$(echo $want)], got [$(echo $got)]" "$(show "$TMP/complete.err" 3)"
	fi
}
# expect_has NAME LINE WORD...: the completions of LINE include WORD...
expect_has() {
	local name=$1 line=$2 got miss="" w
	shift 2
	got=$(complete_line "$line")
	for w in "$@"; do grep -qxF -- "$w" <<<"$got" || miss="$miss $w"; done
	if [ -z "$miss" ] && [ -n "$got" ]; then ok "$name"; else
		not_ok "$name" "completing '$line': missing$miss; got [$(echo $got | head -c 300)]" "$(show "$TMP/complete.err" 3)"
	fi
}

# --- commands ----------------------------------------------------------------------------
expect completion-command "pcl rep" report
mapfile -t all < <("$PCL" --list-cmds | tr ' ' '\n' | grep .)
expect completion-all-commands "pcl " "${all[@]}"
expect completion-after-global "pcl --no-pager scr" script
expect completion-global-option "pcl --no-p" --no-pager
expect completion-help-command "pcl help ann" annotate

# --- options, from the command's own table --------------------------------------------------
expect completion-option "pcl report --sym" --symbols --symfs
bad=()
for c in "${all[@]}"; do
	opts=$("$PCL" "$c" --list-opts 2>/dev/null)
	[ "$c" = help ] || [ "$c" = version ] && continue
	if [ -z "$opts" ]; then bad+=("pcl $c --list-opts printed nothing"); continue; fi
	got=$(complete_line "pcl $c --" | tr '\n' ' ')
	[ "$(tr ' ' '\n' <<<"$opts" | grep . | sort | tr '\n' ' ')" = "$got" ] ||
		bad+=("pcl $c --<TAB>: [$got], want --list-opts' [$opts]")
done
if [ ${#bad[@]} -eq 0 ]; then ok completion-options-all; else not_ok completion-options-all "${bad[@]}"; fi

# --list-opts is the real table: every option it names, the command takes
# (a missing value or file is fine; "unknown option" is not). The reading
# commands only: they do nothing without an input.
run unk "$PCL" report --no-such-option
if ! grep -q "unknown option" "$TMP/unk.err"; then
	not_ok completion-opts-real "pcl report --no-such-option does not say 'unknown option':" "$(show "$TMP/unk.err")"
else
	bad=()
	for c in report script annotate diff; do
		for o in $("$PCL" $c --list-opts); do
			[ "$o" = --help ] && continue
			[ "$c" = diff ] && args=("$TMP/none1" "$TMP/none2") || args=(-i "$TMP/none")
			timeout -k 2 10 "$PCL" $c "$o" "${args[@]}" >/dev/null 2>"$TMP/o.err" </dev/null
			grep -q "unknown option" "$TMP/o.err" && bad+=("pcl $c $o: $(head -1 "$TMP/o.err")")
		done
	done
	if [ ${#bad[@]} -eq 0 ]; then ok completion-opts-real; else
		not_ok completion-opts-real "options --list-opts names that the command refuses:" "${bad[@]}"
	fi
fi

# --- events -------------------------------------------------------------------------------
expect completion-event "pcl stat -e task-cl" task-clock
expect completion-event-long "pcl record --event page-fa" page-faults
expect completion-event-list "pcl stat -e cpu-clock,task-cl" cpu-clock,task-clock
expect completion-event-equals "pcl stat --event=page-fa" page-faults
if "$PCL" list 2>/dev/null | grep -q 'sched:sched_switch'; then
	# bash replaces only what follows the ':'
	expect completion-event-tracepoint "pcl record -e sched:sched_swi" sched_switch
else
	skip completion-event-tracepoint "pcl list shows no sched:sched_switch (no tracefs)"
fi
# 'pcl list --raw-dump' is what completion asks first: a pcl whose raw dump
# names an event 'pcl list' does not show
mkdir -p "$TMP/fake"
cat >"$TMP/fake/pcl" <<EOF
#!/bin/sh
[ "\$1 \$2" = "list --raw-dump" ] && { echo "zz-raw-one zz-raw-two task-clock"; exit 0; }
exec "$PCL" "\$@"
EOF
chmod +x "$TMP/fake/pcl"
PCL_BIN=$TMP/fake expect completion-event-raw-dump "pcl stat -e zz-raw" zz-raw-one zz-raw-two
# and without it (a pcl that refuses --raw-dump), the names of 'pcl list'
cat >"$TMP/fake/pcl" <<EOF
#!/bin/sh
[ "\$1 \$2" = "list --raw-dump" ] && { echo "pcl: unknown option '--raw-dump'" >&2; exit 2; }
exec "$PCL" "\$@"
EOF
PCL_BIN=$TMP/fake expect completion-event-no-raw-dump "pcl stat -e context-sw" context-switches

# --- files --------------------------------------------------------------------------------
touch "$TMP/perf.data" "$TMP/perf.data.old"
expect completion-files "pcl report -i $TMP/perf.data.o" "$TMP/perf.data.old"
