//go:build unix

// These tests protect `git wt new` asked again for an existing task with
// flags that contradict it (SPEC §2): nothing changes, and it exits 2
// saying what differs, while the same flags (bases compared resolved)
// still resume the task.
package e2e

import (
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestNewAgainWithAnotherBranchBaseOrPathIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "dev")
	path := s.MustWT("new", "-q", "T", "--branch", "feature/t", "--base", "dev", "--path", "here").Out()
	cases := []struct {
		flags []string
		says  string
	}{
		{[]string{"--branch", "other"}, "other"},
		{[]string{"--base", "main"}, "main"},
		{[]string{"--path", "there"}, "there"},
	}
	for _, tc := range cases {
		r := s.WT(append([]string{"new", "T"}, tc.flags...)...)
		if r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "git-wt: ") || !strings.Contains(r.Stderr, tc.says) {
			t.Errorf("new T %s: %s", strings.Join(tc.flags, " "), r)
		}
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/other") {
		t.Error("a refused new made the branch it was asked for")
	}
	if got := s.Git(path, "symbolic-ref", "HEAD"); got != "refs/heads/feature/t" {
		t.Errorf("the task's worktree is now on %s", got)
	}
	// The same flags, spelled otherwise, resume it.
	for _, flags := range [][]string{
		{"--branch", "feature/t", "--base", "refs/heads/dev", "--path", "here"},
		{"--base", "dev"},
		{"--path", path},
		{},
	} {
		if got := s.MustWT(append([]string{"new", "-q", "T"}, flags...)...).Out(); got != path {
			t.Errorf("new T %s = %q, want %q", strings.Join(flags, " "), got, path)
		}
	}
}
