# git-wt shell integration (printed by `git wt shell-init fish`):
#   {{.Name}} TASK [NEW-OPTIONS...]   cd into TASK's worktree, creating it first
#                                (git wt new TASK NEW-OPTIONS...) if there is none
#   {{.Name}}                         cd back to the main worktree
function {{.Name}} --description 'cd into a git-wt task worktree, creating it if needed'
    if test (count $argv) -eq 0
        set -l dir (command git wt path --main); or return
        cd $dir
        return
    end
    set -l dir (command git wt path -- $argv[1] 2>/dev/null)
    or set dir (command git wt new $argv[2..-1] -- $argv[1])
    or return
    cd $dir
end
complete -c {{.Name}} -f
complete -c {{.Name}} -n 'test (count (commandline -opc)) -eq 1' -a '(command git wt __complete path (commandline -ct) 2>/dev/null)'
