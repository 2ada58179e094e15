# git-wt shell integration (printed by `git wt shell-init fish`):
#   {{.Name}} TASK [NEW-OPTIONS...]   cd into TASK's worktree, creating it first
#                                (git wt new TASK NEW-OPTIONS...) if there is none
#   {{.Name}} -n TASK                 cd into TASK's worktree; never create one
#   {{.Name}}                         cd back to the main worktree
# A task that is created says so on stderr: a typo makes a new branch, and
# must not pass unseen.
function {{.Name}} --description 'cd into a git-wt task worktree, creating it if needed (-n: never)'
    set -l create 1
    if test "$argv[1]" = -n
        set create
        set -e argv[1]
    end
    if test (count $argv) -eq 0
        set -l dir (command git wt path --main); or return
        cd $dir
        return
    end
    set -l dir (command git wt path -- $argv[1] 2>/dev/null)
    set -l st $status
    # Only "no such task" (exit 5) creates one; any other failure, or -n,
    # lets git wt path say what is wrong.
    if test $st -eq 5; and set -q create[1]
        printf '{{.Name}}: no task %s: creating it\n' $argv[1] >&2
        set dir (command git wt new $argv[2..-1] -- $argv[1]); or return
    else if test $st -ne 0
        command git wt path -- $argv[1] >/dev/null
        return
    end
    cd $dir
end
complete -c {{.Name}} -f
complete -c {{.Name}} -s n -d 'never create the task'
complete -c {{.Name}} -n 'set -l w (commandline -opc); test (count $w) -eq 1; or begin; test (count $w) -eq 2; and test "$w[2]" = -n; end' -a '(command git wt __complete path (commandline -ct) 2>/dev/null)'
