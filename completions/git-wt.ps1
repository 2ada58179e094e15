# PowerShell completion for git-wt (printed by `git wt completion pwsh`),
# for PowerShell 7 and Windows PowerShell 5.1. Load it from your profile:
#   git wt completion pwsh | Out-String | Invoke-Expression
#
# Completes `git-wt ...` and `git wt ...`. The candidates come from
# `git-wt __complete WORD...`, which reads the commands and flags from
# git-wt itself and the task ids from the refs. PowerShell keeps one
# completer per command: posh-git's completes git, so where posh-git is
# loaded this one leaves git alone and completes git-wt only.

# __git_wt_args are the words after "git-wt" or "git [options] wt" before
# the cursor (git's -C options first, for git-wt); $null if the line is
# not git-wt's.
function __git_wt_args($commandAst, $cursorPosition) {
    $words = @(foreach ($e in $commandAst.CommandElements) {
        if ($e.Extent.EndOffset -ge $cursorPosition) { break }
        if ($e -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $e.Value } else { $e.Extent.Text }
    })
    if ($words.Count -eq 0) { return $null }
    $command = [System.IO.Path]::GetFileNameWithoutExtension([string]$words[0])
    if ($command -eq 'git-wt') { return , @($words | Select-Object -Skip 1) }
    if ($command -ne 'git') { return $null }
    $dirs = @()
    $i = 1
    while ($i -lt $words.Count) {
        switch -CaseSensitive -Wildcard ($words[$i]) {
            '-C' { $dirs += '-C', $words[$i + 1]; $i += 2; continue }
            { $_ -in '-c', '--git-dir', '--work-tree', '--namespace' } { $i += 2; continue }
            '-*' { $i += 1; continue }
            'wt' { return , @($dirs + @($words | Select-Object -Skip ($i + 1))) }
            default { return $null }
        }
    }
    return $null
}

$__git_wt_completer = {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = __git_wt_args $commandAst $cursorPosition
    if ($null -eq $words) { return }
    $current = $wordToComplete
    if ($current -eq '' -and $PSNativeCommandArgumentPassing -notin 'Standard', 'Windows') {
        $current = '""' # PowerShell before 7.3 drops an empty argument
    }
    $lines = @(git-wt __complete @words $current 2>$null)
    switch ($lines[0]) {
        ':files' { return } # PowerShell's own file completion
        ':dirs' {
            Get-ChildItem -Directory -Path "$wordToComplete*" -ErrorAction SilentlyContinue | ForEach-Object {
                [System.Management.Automation.CompletionResult]::new($_.Name, $_.Name, 'ProviderContainer', $_.FullName)
            }
            return
        }
    }
    foreach ($line in $lines) {
        $value, $description = $line -split "`t", 2
        if ($value.StartsWith($wordToComplete)) {
            if (-not $description) { $description = $value }
            [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $description)
        }
    }
}
Register-ArgumentCompleter -Native -CommandName git-wt, git-wt.exe -ScriptBlock $__git_wt_completer
if (-not (Get-Module -Name posh-git)) {
    Register-ArgumentCompleter -Native -CommandName git, git.exe -ScriptBlock $__git_wt_completer
}
