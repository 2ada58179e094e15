//go:build unix

// These tests protect the shell integration printed by `git wt
// shell-init`, in bash, zsh and fish: `wtcd TASK` cds into the task's
// worktree (found by id or slug, or created with the extra arguments
// going to git wt new, saying so on stderr), `wtcd -n TASK` never
// creates one, `wtcd` alone cds back to the main worktree, a failure
// leaves the shell where it was, and --name renames the function.
package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// wtcdScripts are, per shell, a script that loads the function (named
// NAME) and runs the same story, printing the directory after each step.
var wtcdScripts = map[string][]string{
	"bash": {"--norc", "--noprofile", "-c", `eval "$(git wt shell-init bash --name NAME)"
NAME T-1 && pwd
NAME fix-_bug_-1 && pwd
NAME -n NEW-2; echo "status $?"; pwd
NAME NEW-2 --base main --quiet 2>&1 && pwd
NAME -n T-1 && pwd
NAME && pwd
NAME bad --bogus; echo "status $?"; pwd`},
	"zsh": {"-f", "-c", `eval "$(git wt shell-init zsh --name NAME)"
NAME T-1 && pwd
NAME fix-_bug_-1 && pwd
NAME -n NEW-2; echo "status $?"; pwd
NAME NEW-2 --base main --quiet 2>&1 && pwd
NAME -n T-1 && pwd
NAME && pwd
NAME bad --bogus; echo "status $?"; pwd`},
	"fish": {"-c", `git wt shell-init fish --name NAME | source
NAME T-1; and pwd
NAME fix-_bug_-1; and pwd
NAME -n NEW-2; echo "status $status"; pwd
NAME NEW-2 --base main --quiet 2>&1; and pwd
NAME -n T-1; and pwd
NAME; and pwd
NAME bad --bogus; echo "status $status"; pwd`},
}

func TestShellInit(t *testing.T) {
	t.Parallel() // mostly waiting on shells and builds
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			needCommands(t, shell)
			s := testutil.NewSandbox(t)
			t1 := s.MustWT("new", "T-1").Out()
			fix := s.MustWT("new", "fix: bug #1").Out()
			base := filepath.Dir(t1)
			for _, name := range []string{"wtcd", "go2"} {
				args := append([]string(nil), wtcdScripts[shell]...)
				args[len(args)-1] = strings.ReplaceAll(args[len(args)-1], "NAME", name)
				got := strings.Split(strings.TrimSpace(runShell(t, s, nil, shell, args...)), "\n")
				want := []string{t1, fix, "status 5", fix, name + ": no task NEW-2: creating it", filepath.Join(base, "NEW-2"), t1, s.Repo, "status 2", s.Repo}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s with %s:\n%s\nwant\n%s", shell, name, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				s.MustWT("rm", "NEW-2")
			}
		})
	}
}

func TestShellInitAndCompletionRefuseBadInput(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{
		{"shell-init", "tcsh"},
		{"shell-init"},
		{"shell-init", "bash", "--name", "two words"},
		{"shell-init", "bash", "--name", "-x"},
		{"completion", "tcsh"},
		{"completion", "bash", "zsh"},
	} {
		if r := s.WT(args...); r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "git-wt: ") {
			t.Errorf("git wt %q: want a usage error, got %s", args, r)
		}
	}
}

// PowerShell's scripts (which no test here can run: see
// completions/pwsh_test.go) are printed for pwsh and for powershell, the
// name Windows PowerShell goes by.
func TestPowerShellIsPwshOrPowershell(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, cmd := range []struct{ which, want string }{
		{"completion", "Register-ArgumentCompleter -Native -CommandName git-wt"},
		{"shell-init", "function wtcd {"},
	} {
		pwsh := s.MustWT(cmd.which, "pwsh").Stdout
		if powershell := s.MustWT(cmd.which, "powershell").Stdout; powershell != pwsh || !strings.Contains(pwsh, cmd.want) {
			t.Errorf("git wt %s pwsh and powershell differ, or lack %q:\n%s", cmd.which, cmd.want, pwsh)
		}
	}
}
