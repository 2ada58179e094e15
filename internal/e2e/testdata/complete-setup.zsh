# Sourced by complete.zsh in the interactive zsh it drives: load the
# completion system and git-wt's completion (with "eval", wtcd's too from
# git wt shell-init), and make every completion
# print the matches it would offer instead of offering them.
PROMPT= RPROMPT= PS2=
if [[ $WT_ZSH_SETUP == eval ]]; then
	autoload -Uz compinit && compinit -u -D
	eval "$(git wt completion zsh)"
	eval "$(git wt shell-init zsh)"
else
	fpath=($WT_ZSH_SETUP $fpath)
	autoload -Uz compinit && compinit -u -D
fi
compadd () {
	# Calls that only ask which words match are passed through.
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "$@"
		return
	fi
	local -a __hits
	builtin compadd -A __hits "$@"
	local h
	for h in $__hits; do print -r -- "CAND:$h"; done
}
__wt_done () { print -r -- '<<END>>'; comppostfuncs=(__wt_done) }
comppostfuncs=(__wt_done)
bindkey '^I' complete-word
bindkey '^U' kill-whole-line
print -r -- '<<READY>>'
