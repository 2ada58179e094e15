//go:build unix

// These tests protect where worktrees may go (SPEC §14 "--path"): never in
// git-wt's own folders (whose contents gc deletes), never inside or around
// another worktree, and a worktree with another inside it is never removed.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestNewRefusesAPathInGitWtsOwnFolders(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, p := range []string{".git-wt-trash/x", ".pool/x", "a/.git-wt-trash", ".git-wt-tmp/merge-1"} {
		r := s.WT("new", "T", "--path", p)
		if r.Code != 2 {
			t.Errorf("new --path %s: %s", p, r)
		}
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("a refused new left its branch behind")
	}
	// gc must find nothing of T to delete: no task, no worktree.
	if n := len(strings.Split(s.Git(s.Repo, "worktree", "list", "--porcelain"), "\n\n")); n != 1 {
		t.Fatalf("a refused new left a worktree: %s", s.Git(s.Repo, "worktree", "list"))
	}
}

func TestNewRefusesAPathThatIsTheBaseDir(t *testing.T) {
	s := testutil.NewSandbox(t)
	base := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees")
	for _, p := range []string{".", base} {
		if r := s.WT("new", "T", "--path", p); r.Code != 2 {
			t.Errorf("new --path %s: %s", p, r)
		}
	}
}

func TestNewRefusesAPathInsideOrAroundAnotherWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	outer := s.MustWT("new", "-q", "outer").Out()
	if r := s.WT("new", "inner", "--path", "outer/sub"); r.Code != 2 {
		t.Fatalf("--path inside another task's worktree: %s", r)
	}
	// A worktree made deep in the base dir by plain git, and a --path
	// around it.
	base := filepath.Dir(outer)
	s.Git(s.Repo, "worktree", "add", "-q", "--detach", filepath.Join(base, "deep", "plain"))
	if r := s.WT("new", "around", "--path", "deep"); r.Code == 0 {
		t.Fatalf("--path around another worktree: %s", r)
	}
	if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 3 {
		t.Fatalf("worktrees after the refusals:\n%s", got)
	}
}

func TestRemoveRefusesAWorktreeWithAnotherInside(t *testing.T) {
	s := testutil.NewSandbox(t)
	outer := s.MustWT("new", "-q", "outer").Out()
	// Made by plain git, which checks nothing: a worktree inside the task's.
	inner := filepath.Join(outer, "inner")
	s.Git(s.Repo, "worktree", "add", "-q", "--detach", inner)
	s.Write(filepath.Join(inner, "work.txt"), "an agent's work\n")
	for _, args := range [][]string{{"rm", "outer"}, {"rm", "--force", "outer"}} {
		r := s.WT(args...)
		if r.Code != 3 || !strings.Contains(r.Stderr, inner) {
			t.Fatalf("git wt %s: %s", strings.Join(args, " "), r)
		}
	}
	if _, err := os.Stat(filepath.Join(inner, "work.txt")); err != nil {
		t.Fatalf("the inner worktree's work is gone: %v", err)
	}
	s.MustWT("path", "outer")
}

func TestNewTakesAPathInABaseDirInsideTheMainWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", ".agents/worktrees")
	want := filepath.Join(s.Repo, ".agents", "worktrees", "mine")
	if got := s.MustWT("new", "-q", "T", "--path", "mine").Out(); got != want {
		t.Fatalf("new --path mine = %q, want %q", got, want)
	}
}
