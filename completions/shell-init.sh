# git-wt shell integration (printed by `git wt shell-init {{.Shell}}`):
#   {{.Name}} TASK [NEW-OPTIONS...]   cd into TASK's worktree, creating it first
#                                (git wt new TASK NEW-OPTIONS...) if there is none
#   {{.Name}}                         cd back to the main worktree
{{.Name}} () {
	local __git_wt_dir
	if [ "$#" -eq 0 ]; then
		__git_wt_dir=$(command git wt path --main) || return
	elif ! __git_wt_dir=$(command git wt path -- "$1" 2>/dev/null); then
		__git_wt_dir=$(command git wt new "${@:2}" -- "$1") || return
	fi
	cd -- "$__git_wt_dir"
}
{{- if eq .Shell "bash"}}

_{{.Name}}_complete () {
	local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' line
	COMPREPLY=()
	[ "$COMP_CWORD" -eq 1 ] || return 0
	for line in $(command git wt __complete path "$cur" 2>/dev/null); do
		[[ $line == "$cur"* ]] && COMPREPLY+=("${line%%$'\t'*}")
	done
}
complete -F _{{.Name}}_complete {{.Name}}
{{- else}}

_{{.Name}}_complete () {
	(( CURRENT == 2 )) || return 1
	local -a slugs
	slugs=("${(@f)$(command git wt __complete path "$PREFIX" 2>/dev/null)}")
	compadd -- ${slugs%%$'\t'*}
}
(( $+functions[compdef] )) && compdef _{{.Name}}_complete {{.Name}}
{{- end}}
