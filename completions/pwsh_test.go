// These tests protect the PowerShell integration (SPEC §21), which no
// test here can run (there is no PowerShell on Linux CI): the scripts
// hold what each part needs, and none of the constructs that break in
// one of the two PowerShells a Windows user has (7, and 5.1).
package completions

import (
	"regexp"
	"strings"
	"testing"
)

func TestPowerShellScriptsHoldWhatTheyNeed(t *testing.T) {
	completion, ok := Script("pwsh")
	if !ok {
		t.Fatal("no PowerShell completion script")
	}
	tmpl, err := ShellInit("pwsh")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, struct{ Shell, Name string }{"pwsh", "go2"}); err != nil {
		t.Fatal(err)
	}
	shellInit := b.String()
	for _, tc := range []struct {
		script, name string
		want         []string
	}{
		{completion, "completion", []string{
			"Register-ArgumentCompleter -Native -CommandName git-wt, git-wt.exe", // git-wt TAB
			"-CommandName git, git.exe",            // git wt TAB
			"Get-Module -Name posh-git",            // never takes git's completion from posh-git
			"git-wt __complete @words $current",    // the candidates come from git-wt
			"'-C' { $dirs += '-C', $words[$i + 1]", // git -C DIR wt: git-wt looks there
			"'wt' { return",                        // the words after git's "wt"
			"':files'", "':dirs'",                  // the directives of __complete
			"$PSNativeCommandArgumentPassing",    // 5.1 drops an empty argument
			"$value.StartsWith($wordToComplete)", // filtered by the word typed
		}},
		{shellInit, "shell-init", []string{
			"function go2 {",
			"$rest[0] -ceq '-n'",                // -n: never create
			"& $git wt path --main",             // no task: the main worktree
			"& $git wt path '--' $task 2>$null", // the task's folder
			"$status -eq 5 -and $create",        // only "no such task" creates one
			"go2: no task {0}: creating it",     // and says so on stderr
			"[Console]::Error.WriteLine",        //
			"& $git wt new @options '--' $task", // the other arguments go to new
			"Set-Location -LiteralPath $dir",    // a path is never a wildcard
			"Register-ArgumentCompleter -Native -CommandName go2",
			"& $git wt __complete path \"$wordToComplete\"", // completes task ids
		}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.script, w) {
				t.Errorf("the PowerShell %s script lacks %q", tc.name, w)
			}
		}
		// A bare -- is PowerShell's own end of parameters, which 5.1 never
		// passes to git: it is quoted wherever it goes to git.
		for n, line := range strings.Split(tc.script, "\n") {
			code, _, _ := strings.Cut(line, "#")
			if regexp.MustCompile(`(^|\s)--(\s|$)`).MatchString(code) {
				t.Errorf("%s line %d passes a bare --: %s", tc.name, n+1, line)
			}
		}
	}
	if strings.Contains(shellInit, "{{") || strings.Contains(shellInit, "wtcd") {
		t.Errorf("shell-init pwsh --name go2 left a template field or the default name:\n%s", shellInit)
	}
}
