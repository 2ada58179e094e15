# bash completion for git-wt (printed by `git wt completion bash`).
#
# `git wt <TAB>` goes through git's own completion, which calls _git_wt
# (and loads this file from share/bash-completion/completions/git-wt when
# it needs it); `git-wt <TAB>` through the `complete` line at the end.
# The candidates come from `git-wt __complete WORD...`, which reads the
# commands and flags from git-wt itself and the task ids from the refs.

# __git_wt_reply fills COMPREPLY for the word $cur, given the words
# between "wt" and it.
__git_wt_reply ()
{
	local IFS=$'\n' line i
	local -a lines
	if declare -F __git >/dev/null; then
		lines=($(__git wt __complete "$@" "$cur"))
	else
		lines=($(git-wt __complete "$@" "$cur" 2>/dev/null))
	fi
	COMPREPLY=()
	case ${lines[0]-} in
	:files|:dirs)
		if [ "${lines[0]}" = :dirs ]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		# bash 3.2 (macOS's /bin/bash) has no compopt: a folder gets its
		# slash and a file its space here.
		if ! compopt -o filenames +o nospace 2>/dev/null; then
			for i in "${!COMPREPLY[@]}"; do
				if [ -d "${COMPREPLY[i]}" ]; then
					COMPREPLY[i]+=/
				else
					COMPREPLY[i]+=' '
				fi
			done
		fi
		return
		;;
	esac
	compopt +o default +o bashdefault 2>/dev/null
	for line in "${lines[@]}"; do
		line=${line%%$'\t'*}
		[[ $line == "$cur"* ]] && COMPREPLY+=("$line ")
	done
}

# _git_wt is what git's completion calls for `git wt`, with words, cword
# and cur set (and __git_cmd_idx, the index of "wt", in git 2.30 and later).
_git_wt ()
{
	local i start=${__git_cmd_idx-}
	if [ -z "$start" ]; then
		for ((i = 1; i < cword; i++)); do
			if [ "${words[i]}" = wt ]; then start=$i; break; fi
		done
	fi
	__git_wt_reply "${words[@]:start+1:cword-start-1}"
}

_git_wt_direct ()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	__git_wt_reply "${COMP_WORDS[@]:1:COMP_CWORD-1}"
}

complete -o bashdefault -o default -o nospace -F _git_wt_direct git-wt
