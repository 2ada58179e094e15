# git-wt shell integration (printed by `git wt shell-init pwsh`), for
# PowerShell 7 and Windows PowerShell 5.1:
#   {{.Name}} TASK [NEW-OPTIONS...]   cd into TASK's worktree, creating it first
#                                (git wt new TASK NEW-OPTIONS...) if there is none
#   {{.Name}} -n TASK                 cd into TASK's worktree; never create one
#   {{.Name}}                         cd back to the main worktree
# A task that is created says so on stderr: a typo makes a new branch, and
# must not pass unseen. The function declares no parameters, so that every
# NEW-OPTION reaches git wt new as it was typed; '--' is quoted, which
# PowerShell passes on to git as it is.
function {{.Name}} {
    $git = Get-Command -Name git -CommandType Application -TotalCount 1 -ErrorAction Stop
    $rest = @($args)
    $create = $true
    if ($rest.Count -gt 0 -and $rest[0] -ceq '-n') {
        $create = $false
        $rest = @($rest | Select-Object -Skip 1)
    }
    if ($rest.Count -eq 0) {
        $dir = & $git wt path --main
        if ($LASTEXITCODE -ne 0) { return }
        Set-Location -LiteralPath $dir
        return
    }
    $task = [string]$rest[0]
    $dir = & $git wt path '--' $task 2>$null
    $status = $LASTEXITCODE
    # Only "no such task" (exit 5) creates one; any other failure, or -n,
    # lets git wt path say what is wrong.
    if ($status -eq 5 -and $create) {
        [Console]::Error.WriteLine(('{{.Name}}: no task {0}: creating it' -f $task))
        $options = @($rest | Select-Object -Skip 1)
        $dir = & $git wt new @options '--' $task
        if ($LASTEXITCODE -ne 0) { return }
    } elseif ($status -ne 0) {
        & $git wt path '--' $task > $null
        return
    }
    Set-Location -LiteralPath $dir
}

# The task is the first argument, or the second after -n.
Register-ArgumentCompleter -Native -CommandName {{.Name}} -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $before = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition })
    if (-not ($before.Count -eq 1 -or ($before.Count -eq 2 -and $before[1].Extent.Text -ceq '-n'))) { return }
    $git = Get-Command -Name git -CommandType Application -TotalCount 1 -ErrorAction SilentlyContinue
    if (-not $git) { return }
    foreach ($line in @(& $git wt __complete path "$wordToComplete" 2>$null)) {
        $value = ($line -split "`t", 2)[0]
        if ($value.StartsWith($wordToComplete)) {
            [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $value)
        }
    }
}
