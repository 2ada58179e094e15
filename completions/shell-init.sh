# git-wt shell integration (printed by `git wt shell-init {{.Shell}}`):
#   {{.Name}} TASK [NEW-OPTIONS...]   cd into TASK's worktree, creating it first
#                                (git wt new TASK NEW-OPTIONS...) if there is none
#   {{.Name}} -n TASK                 cd into TASK's worktree; never create one
#   {{.Name}}                         cd back to the main worktree
# A task that is created says so on stderr: a typo makes a new branch, and
# must not pass unseen.
{{.Name}} () {
	local __git_wt_dir __git_wt_status __git_wt_create=1
	if [ "$1" = -n ]; then
		__git_wt_create=
		shift
	fi
	if [ "$#" -eq 0 ]; then
		__git_wt_dir=$(command git wt path --main) || return
	else
		__git_wt_dir=$(command git wt path -- "$1" 2>/dev/null)
		__git_wt_status=$?
		# Only "no such task" (exit 5) creates one; any other failure, or
		# -n, lets git wt path say what is wrong.
		if [ "$__git_wt_status" -eq 5 ] && [ -n "$__git_wt_create" ]; then
			printf '{{.Name}}: no task %s: creating it\n' "$1" >&2
			__git_wt_dir=$(command git wt new "${@:2}" -- "$1") || return
		elif [ "$__git_wt_status" -ne 0 ]; then
			command git wt path -- "$1" >/dev/null
			return
		fi
	fi
	cd -- "$__git_wt_dir"
}
{{- if eq .Shell "bash"}}

_{{.Name}}_complete () {
	local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' line
	COMPREPLY=()
	# The task is the first argument, or the second after -n.
	[ "$COMP_CWORD" -eq 1 ] || { [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = -n ]; } || return 0
	for line in $(command git wt __complete path "$cur" 2>/dev/null); do
		[[ $line == "$cur"* ]] && COMPREPLY+=("${line%%$'\t'*}")
	done
}
complete -F _{{.Name}}_complete {{.Name}}
{{- else}}

_{{.Name}}_complete () {
	# The task is the first argument, or the second after -n.
	(( CURRENT == 2 )) || { (( CURRENT == 3 )) && [[ ${words[2]} == -n ]]; } || return 1
	local -a slugs
	slugs=("${(@f)$(command git wt __complete path "$PREFIX" 2>/dev/null)}")
	compadd -- ${slugs%%$'\t'*}
}
(( $+functions[compdef] )) && compdef _{{.Name}}_complete {{.Name}}
{{- end}}
