# complete.bash MODE LINE...
# For each LINE, prints "== LINE" and then the candidates bash's completion
# offers when LINE is typed and TAB pressed, one a line. MODE "eval":
# git's completion script is sourced and git-wt's loaded with
# eval "$(git wt completion bash)", and wtcd with git wt shell-init;
# MODE "installed": bash-completion loads both on demand, from where
# install.sh put them; MODE "bash3": as eval, without the compopt builtin
# (bash 4), as in macOS's /bin/bash 3.2 (a function of that name is found
# before the builtin).
case $1 in
bash3)
	compopt () { return 1; }
	source /usr/share/bash-completion/completions/git
	eval "$(git wt completion bash)"
	eval "$(git wt shell-init bash)"
	;;
eval)
	source /usr/share/bash-completion/completions/git
	eval "$(git wt completion bash)"
	eval "$(git wt shell-init bash)"
	;;
installed)
	source /usr/share/bash-completion/bash_completion
	;;
esac
shift
for line; do
	echo "== $line"
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_LINE=$line COMP_POINT=${#line} COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	cmd=${COMP_WORDS[0]}
	spec=$(complete -p "$cmd" 2>/dev/null) || {
		_completion_loader "$cmd"
		spec=$(complete -p "$cmd")
	}
	fn=$(sed -E 's/.* -F ([^ ]+) .*/\1/' <<<"$spec")
	COMPREPLY=()
	"$fn" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\n' "${COMPREPLY[@]}"
done
