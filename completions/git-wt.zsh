#compdef git-wt
#description give every task its own worktree
# zsh completion for git-wt (printed by `git wt completion zsh`).
#
# zsh's git completion calls _git-wt for `git wt <TAB>`; compinit binds it
# to `git-wt` itself. Installed as share/zsh/site-functions/_git-wt (a
# folder in $fpath), or: eval "$(git wt completion zsh)" after compinit.
# The candidates come from `git-wt __complete WORD...`, which reads the
# commands and flags from git-wt itself and the task ids from the refs.

_git-wt () {
	local -a lines described dir
	local line value desc
	# `git -C DIR wt ...`: zsh's git completion keeps -C in opt_args.
	(( ${+opt_args[-C]} )) && dir=(-C "${(Q)${~opt_args[-C]}}")
	lines=("${(@f)$(git-wt $dir __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	case $lines[1] in
	(:files) _files; return ;;
	(:dirs) _directories; return ;;
	esac
	for line in $lines; do
		[[ -n $line ]] || continue
		value=${line%%$'\t'*} desc=
		[[ $line == *$'\t'* ]] && desc=${line#*$'\t'}
		described+=("${value//:/\\:}${desc:+:$desc}")
	done
	(( $#described )) && _describe -t values 'git wt' described
}

if [[ $funcstack[1] == _git-wt ]]; then
	_git-wt "$@"
else
	compdef _git-wt git-wt
fi
