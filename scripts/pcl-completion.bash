# bash completion for pcl (installed by make install as
# PREFIX/share/bash-completion/completions/pcl).
#
# Nothing here is a list kept by hand: the names come from pcl itself, as
# perf's completion asks perf:
#   pcl --list-cmds          the commands
#   pcl --list-opts          the global options
#   pcl CMD --list-opts      CMD's long options, from its option table
#   pcl list --raw-dump      the event names, for -e/--event (with 'pcl list'
#                            read column by column where --raw-dump is not known)
# Needs nothing from the bash-completion package.

# The event names on one line: --raw-dump, else the names of 'pcl list'.
_pcl_events()
{
	local pcl=$1 out
	if out=$("$pcl" list --raw-dump 2>/dev/null) && [[ -n $out ]]; then
		printf '%s\n' "$out"
		return
	fi
	# '  name [OR alias]   [Kind ...]': the first column (and the alias)
	"$pcl" --no-pager list 2>/dev/null |
		awk '/^  [^ ]/ { print $1; if ($2 == "OR") print $3 }'
}

_pcl()
{
	local line cur prev pcl cmd w i n brk cands pre words=()

	# Words split at blanks only: bash splits event names at ':' and options
	# at '=' (COMP_WORDBREAKS), which this undoes before matching.
	if [[ -n ${COMP_LINE-} ]]; then
		line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
		read -ra words <<<"$line"
		[[ -z $line || $line == *[[:blank:]] ]] && words+=("")
	else
		words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
	fi
	n=${#words[@]}
	cur=${words[n - 1]}
	prev=
	((n > 1)) && prev=${words[n - 2]}
	pcl=${words[0]}
	# a leading ~ is not expanded by the shell in a completion's words
	[[ $pcl == "~/"* ]] && pcl=$HOME/${pcl#"~/"}

	cmd=
	for ((i = 1; i < n - 1; i++)); do
		w=${words[i]}
		case $w in
		--buildid-dir) ((i++)) ;;
		-*) ;;
		*)
			cmd=$w
			break
			;;
		esac
	done

	pre=
	if [[ -z $cmd ]]; then
		if [[ $prev == --buildid-dir ]]; then
			cands=$(compgen -d -- "$cur")
		elif [[ $cur == -* ]]; then
			cands=$("$pcl" --list-opts 2>/dev/null)
		else
			cands=$("$pcl" --list-cmds 2>/dev/null)
		fi
	elif [[ $prev == -e || $prev == --event || $cur == --event=* ]]; then
		# -e a,b,c: complete the last name of the list
		[[ $cur == --event=* ]] && pre=--event= && cur=${cur#--event=}
		[[ $cur == *,* ]] && pre=$pre${cur%,*}, && cur=${cur##*,}
		cands=$(_pcl_events "$pcl")
	elif [[ $cur == -* ]]; then
		cands=$("$pcl" "$cmd" --list-opts 2>/dev/null)
	elif [[ $prev == "$cmd" && $cmd == help ]]; then
		cands=$("$pcl" --list-cmds 2>/dev/null)
	elif [[ $prev == "$cmd" && $cmd == data ]]; then
		cands=convert
	elif [[ $prev == "$cmd" && $cmd == daemon ]]; then
		cands="start stop ping signal list"
	else
		# files: perf.data, a command to run, an output
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return 0
	fi

	COMPREPLY=()
	for w in $cands; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$pre$w")
	done
	# bash replaces only what follows the last COMP_WORDBREAKS character
	# of the word (':' of an event, '=' of an option): drop what precedes
	brk=$pre$cur
	for ((i = ${#brk} - 1; i >= 0; i--)); do
		if [[ ${COMP_WORDBREAKS-} == *"${brk:i:1}"* ]]; then
			brk=${brk:0:i+1}
			for n in "${!COMPREPLY[@]}"; do
				COMPREPLY[n]=${COMPREPLY[n]#"$brk"}
			done
			break
		fi
	done
	return 0
}

complete -F _pcl pcl
