//go:build unix

// Plain git on a task branch by its short name behaves as it would without
// git-wt (SPEC §4): no ref git-wt stores may shadow the branch wt/<slug>.
package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// gitIn runs plain git in dir and fails the test, with git's own message,
// when it does not exit 0.
func gitIn(t *testing.T, s *testutil.Sandbox, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, s.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestPlainGitOnATaskBranchByItsShortName(t *testing.T) {
	s := testutil.NewSandbox(t)
	bare := filepath.Join(t.TempDir(), "origin.git")
	s.Git(s.Repo, "init", "-q", "--bare", bare)
	s.Git(s.Repo, "remote", "add", "origin", bare)
	mainSHA := s.Git(s.Repo, "rev-parse", "HEAD")
	path := s.MustWT("new", "T").Out()

	if got := gitIn(t, s, path, "rev-parse", "--abbrev-ref", "HEAD"); got != "wt/T" {
		t.Errorf("git rev-parse --abbrev-ref HEAD in the worktree = %q, want wt/T", got)
	}
	s.Write(filepath.Join(path, "feature.txt"), "feature\n")
	s.Git(path, "add", "feature.txt")
	s.Git(path, "commit", "-q", "-m", "add feature")
	tip := s.Git(path, "rev-parse", "HEAD")

	if got := gitIn(t, s, s.Repo, "log", "--format=%s", "wt/T"); !strings.HasPrefix(got, "add feature\n") {
		t.Errorf("git log wt/T printed %q, want the task's commit first", got)
	}
	if got := gitIn(t, s, s.Repo, "show", "-s", "--format=%H", "wt/T"); got != tip {
		t.Errorf("git show wt/T showed %q, want the task's commit %s", got, tip)
	}
	if got := gitIn(t, s, s.Repo, "diff", "--name-only", "main...wt/T"); got != "feature.txt" {
		t.Errorf("git diff main...wt/T printed %q, want feature.txt", got)
	}
	if got := gitIn(t, s, s.Repo, "merge-base", "main", "wt/T"); got != mainSHA {
		t.Errorf("git merge-base main wt/T = %q, want %s", got, mainSHA)
	}
	gitIn(t, s, s.Repo, "push", "-q", "origin", "wt/T")
	if got := s.Git(bare, "rev-parse", "refs/heads/wt/T"); got != tip {
		t.Errorf("git push origin wt/T pushed %q, want the branch %s", got, tip)
	}
	gitIn(t, s, s.Repo, "merge", "-q", "--no-edit", "wt/T")
	if got := s.Git(s.Repo, "rev-parse", "HEAD"); got != tip {
		t.Errorf("after git merge wt/T main is at %q, want %s", got, tip)
	}
	// branch -d needs the branch checked out nowhere; the task stays.
	s.Git(path, "switch", "-q", "--detach")
	gitIn(t, s, s.Repo, "branch", "-d", "wt/T")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Errorf("git branch -d wt/T left the branch")
	}
}
