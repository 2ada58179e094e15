//go:build unix

// These tests protect shell completion as people meet it, in the real
// shells: bash through git's own completion (which calls _git_wt), zsh
// through zsh's git completion (which calls _git-wt), fish for both
// `git wt` and `git-wt` — the commands, the flags and the task ids, all
// read from git-wt at run time.
package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// coreCommands are commands every completion of `git wt ` must offer;
// hidden ones (__complete, hook, help) must not appear.
var coreCommands = []string{"new", "list", "path", "show", "count", "rm", "completion", "shell-init"}

// completionCase is a command line typed up to TAB and what it must offer:
// exactly want, or (subset) at least want.
type completionCase struct {
	line   string
	want   []string
	subset bool
}

// completionSandbox is a repository with two tasks, and beside it another
// repository ("other") with a task of its own, for `git -C`.
func completionSandbox(t *testing.T) *testutil.Sandbox {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T-1")
	s.MustWT("new", "fix: bug #1")
	other := filepath.Join(filepath.Dir(s.Repo), "other")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "-b", "main", "other")
	s.Git(other, "commit", "-q", "--allow-empty", "-m", "initial")
	s.MustWT("-C", other, "new", "OTHER-9")
	return s
}

var completionCases = []completionCase{
	{"git wt ", coreCommands, true},
	{"git wt sh", []string{"shell-init", "show"}, false},
	{"git wt rm ", []string{"T-1", "fix-_bug_-1"}, false},
	{"git wt rm T-1 ", []string{"fix-_bug_-1"}, false},
	{"git wt rm --k", []string{"--keep-branch"}, false},
	{"git wt --no-color path --m", []string{"--main"}, false},
	{"git wt new --branch=wt/T", []string{"--branch=wt/T-1"}, false},
	{"git wt merge T-1 --into ", []string{"main", "wt/T-1", "wt/fix-_bug_-1"}, false},
	{"git wt completion ", []string{"bash", "fish", "pwsh", "zsh"}, false},
	{"git -C ../other wt show ", []string{"OTHER-9"}, false},
	{"git-wt sh", []string{"shell-init", "show"}, false},
	{"git-wt show ", []string{"T-1", "fix-_bug_-1"}, false},
	{"wtcd ", []string{"T-1", "fix-_bug_-1"}, false}, // from git wt shell-init
	{"wtcd T-1 ", nil, false},
	{"wtcd -n ", []string{"T-1", "fix-_bug_-1"}, false},
	{"wtcd -n T-1 ", nil, false},
}

func TestCompletionInEachShell(t *testing.T) {
	for shell, complete := range map[string]func(*testing.T, *testutil.Sandbox) map[string][]string{
		"bash": func(t *testing.T, s *testutil.Sandbox) map[string][]string {
			return completeBash(t, s, "eval", completionCases)
		},
		"zsh": func(t *testing.T, s *testutil.Sandbox) map[string][]string {
			return completeZsh(t, s, "eval", completionCases)
		},
		"fish": func(t *testing.T, s *testutil.Sandbox) map[string][]string {
			return completeFish(t, s, "git wt completion fish | source; git wt shell-init fish | source", completionCases)
		},
	} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel() // mostly waiting on shells
			needCommands(t, shell)
			checkCompletions(t, shell, complete(t, completionSandbox(t)), completionCases)
		})
	}
}

// TestCompletionFollowsCommandDefinitions checks what the completion
// engine reads from the command definitions: global flags, flag values,
// "--", and that a command with no arguments offers nothing.
func TestCompletionFollowsCommandDefinitions(t *testing.T) {
	s := completionSandbox(t)
	for _, c := range []completionCase{
		{"-", []string{"-C", "--quiet", "-q", "--verbose", "--no-color", "--help", "-h", "--version"}, false},
		{"rm -- ", []string{"T-1", "fix-_bug_-1"}, false},
		{"new --base ", []string{"main", "wt/T-1", "wt/fix-_bug_-1"}, false}, // no record shadows a branch
		{"new --branch ", []string{"main", "wt/T-1", "wt/fix-_bug_-1"}, false},
		{"new --branch=", []string{"--branch=main", "--branch=wt/T-1", "--branch=wt/fix-_bug_-1"}, false},
		{"new --no-init=", nil, false},
		{"-C ", []string{":dirs"}, false},
		{"help ", coreCommands, true},
		{"count ", nil, false},
		{"path T-1 ", nil, false},
		{"frobnicate ", nil, false},
	} {
		r := s.MustWT(append([]string{"__complete"}, strings.Split(c.line, " ")...)...)
		checkCompletion(t, "__complete", c, candidates(r.Stdout))
	}
}

func lines(cases []completionCase) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.line)
	}
	return out
}

// completeBash completes each line in bash (mode: see testdata/complete.bash).
func completeBash(t *testing.T, s *testutil.Sandbox, mode string, cases []completionCase, env ...string) map[string][]string {
	args := append([]string{"--norc", "--noprofile", testdata("complete.bash"), mode}, lines(cases)...)
	return byLine(runShell(t, s, env, "bash", args...))
}

// completeZsh completes each line in an interactive zsh (setup: "eval",
// or a folder to put first in $fpath).
func completeZsh(t *testing.T, s *testutil.Sandbox, setup string, cases []completionCase, env ...string) map[string][]string {
	args := append([]string{"-f", testdata("complete.zsh"), setup}, lines(cases)...)
	return byLine(runShell(t, s, env, "zsh", args...))
}

// completeFish completes each line in fish after running setup.
func completeFish(t *testing.T, s *testutil.Sandbox, setup string, cases []completionCase, env ...string) map[string][]string {
	script := setup + `; for l in $argv; echo "== $l"; complete -C $l; end`
	return byLine(runShell(t, s, env, "fish", append([]string{"-c", script, "--"}, lines(cases)...)...))
}

// byLine reads the output of the drivers: "== LINE" and its candidates.
func byLine(out string) map[string][]string {
	got := map[string][]string{}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "== "); ok {
			line = rest
			got[line] = nil
			continue
		}
		if c := candidate(l); c != "" {
			got[line] = append(got[line], c)
		}
	}
	return got
}

// candidate is a completion without its description and trailing space.
func candidate(l string) string {
	l, _, _ = strings.Cut(l, "\t")
	return strings.TrimSpace(l)
}

func candidates(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if c := candidate(l); c != "" {
			got = append(got, c)
		}
	}
	return got
}

func checkCompletions(t *testing.T, shell string, got map[string][]string, cases []completionCase) {
	t.Helper()
	for _, c := range cases {
		checkCompletion(t, shell, c, got[c.line])
	}
}

func checkCompletion(t *testing.T, shell string, c completionCase, got []string) {
	t.Helper()
	for _, hidden := range []string{"__complete", "hook", "help"} {
		if slices.Contains(got, hidden) {
			t.Errorf("%s: %q offers the hidden %q: %q", shell, c.line, hidden, got)
		}
	}
	want := slices.Sorted(slices.Values(c.want))
	sorted := slices.Sorted(slices.Values(got))
	if c.subset {
		for _, w := range want {
			if !slices.Contains(sorted, w) {
				t.Errorf("%s: %q offers %q, missing %q", shell, c.line, sorted, w)
			}
		}
		return
	}
	if !slices.Equal(sorted, want) {
		t.Errorf("%s: %q offers %q, want %q", shell, c.line, sorted, want)
	}
}

// TestBashCompletionWithoutCompopt completes in a bash without bash 4's
// compopt, as macOS's /bin/bash 3.2: task ids and commands as in bash 5,
// and folders (git wt -C) with the slash that compopt's filenames option
// would have shown.
func TestBashCompletionWithoutCompopt(t *testing.T) {
	needCommands(t, "bash")
	s := completionSandbox(t)
	cases := []completionCase{
		{"git wt rm ", []string{"T-1", "fix-_bug_-1"}, false},
		{"git-wt sh", []string{"shell-init", "show"}, false},
		{"wtcd -n ", []string{"T-1", "fix-_bug_-1"}, false},
		{"git wt -C ../oth", []string{"../other/", "../other-worktrees/"}, false},
	}
	checkCompletions(t, "bash3", completeBash(t, s, "bash3", cases), cases)
}
