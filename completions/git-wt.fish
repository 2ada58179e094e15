# fish completion for git-wt (printed by `git wt completion fish`).
#
# Completes `git-wt ...` and `git wt ...` (fish's git completion also hands
# `git wt` over to git-wt's completion). Installed as
# share/fish/vendor_completions.d/git-wt.fish, or:
# git wt completion fish | source
# The candidates come from `git-wt __complete WORD...`, which reads the
# commands and flags from git-wt itself and the task ids from the refs.

# __git_wt_args prints the words after "git-wt" or "git [options] wt",
# the word under the cursor last (and git's -C options first, for
# git-wt); nothing, and status 1, if the line is not git-wt's.
function __git_wt_args
    set -l words (commandline -opc) (commandline -ct)
    if test "$words[1]" = git-wt
        printf '%s\n' $words[2..-1]
        return
    end
    test "$words[1]" = git; or return 1
    set -l dirs
    set -l i 2
    while test $i -lt (count $words)
        switch $words[$i]
            case -C
                set -a dirs -C $words[(math $i + 1)]
                set i (math $i + 2)
            case -c --git-dir --work-tree --namespace
                set i (math $i + 2)
            case '-*'
                set i (math $i + 1)
            case wt
                printf '%s\n' $dirs $words[(math $i + 1)..-1]
                return
            case '*'
                return 1
        end
    end
    return 1
end

function __git_wt_complete
    set -l args (__git_wt_args); or return
    set -l lines (command git-wt __complete $args 2>/dev/null)
    switch "$lines[1]"
        case :files
            __fish_complete_path (commandline -ct)
        case :dirs
            __fish_complete_directories (commandline -ct)
        case '*'
            printf '%s\n' $lines
    end
end

complete -c git-wt -f -a '(__git_wt_complete)'
complete -c git -f -n '__git_wt_args >/dev/null' -a '(__git_wt_complete)'
