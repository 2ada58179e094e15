//go:build unix

// These tests protect `git wt merge` into a base that no worktree has
// checked out: the merge is made without touching any checkout (with
// merge-tree, or a temporary worktree on a git before 2.38), and a
// conflict still changes nothing.
package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// devSetup makes branch dev (checked out nowhere) and task T based on it
// with one commit; if devMoves, dev gets a commit of its own afterwards.
// If conflict, both change README.md.
func devSetup(t *testing.T, s *testutil.Sandbox, devMoves, conflict bool) (path, taskTip, devTip string) {
	s.Git(s.Repo, "branch", "dev")
	path = s.MustWT("new", "T", "--base", "dev").Out()
	file := "task.txt"
	if conflict {
		file = "README.md"
	}
	taskTip = commitFile(s, path, file, "task\n", "task work")
	devTip = s.Git(s.Repo, "rev-parse", "dev")
	if devMoves {
		// Commit on dev without checking it out anywhere.
		tmp := filepath.Join(filepath.Dir(s.Repo), "dev-wt")
		s.Git(s.Repo, "worktree", "add", "-q", tmp, "dev")
		devTip = commitFile(s, tmp, "README.md", "dev\n", "dev moves on")
		s.Git(s.Repo, "worktree", "remove", tmp)
	}
	return path, taskTip, devTip
}

func TestMergeIntoABaseCheckedOutNowhere(t *testing.T) {
	for _, c := range []struct {
		name     string
		flags    []string
		devMoves bool
		old      bool // git 2.37: a temporary worktree instead of merge-tree
		parents  int
	}{
		{"fast-forward", nil, false, false, 1},
		{"merge", nil, true, false, 2},
		{"squash", []string{"--squash"}, true, false, 1},
		{"rebase", []string{"--rebase"}, true, false, 1},
		{"merge on old git", nil, true, true, 2},
		{"squash on old git", []string{"--squash"}, true, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path, taskTip, devTip := devSetup(t, s, c.devMoves, false)
			mainTip := s.Git(s.Repo, "rev-parse", "main")
			wt, args := s, append([]string{"merge", "T"}, c.flags...)
			if c.old {
				wt, args = gitSaysItIs(s, "2.37.7"), append(args, "--verbose")
			}
			r := wt.WT(args...)
			tip := s.Git(s.Repo, "rev-parse", "dev")
			if r.Code != 0 || r.Out() != tip || !strings.Contains(r.Stderr, "into dev") {
				t.Fatalf("merge into dev: %s", r)
			}
			if c.old != strings.Contains(r.Stderr, "/.git-wt-tmp/") {
				t.Fatalf("a temporary worktree must be used on git 2.37, and only there: %s", r)
			}
			if p := parents(s, tip); len(p) != c.parents || c.devMoves && p[0] != devTip {
				t.Fatalf("dev's tip has parents %v (dev was at %s)", p, devTip)
			}
			if s.Git(s.Repo, "show", "dev:task.txt") != "task" || c.devMoves && s.Git(s.Repo, "show", "dev:README.md") != "dev" {
				t.Fatal("dev does not hold both sides")
			}
			if !c.devMoves && tip != taskTip {
				t.Fatal("a fast-forward must put dev at the task's commit")
			}
			if s.Git(s.Repo, "rev-parse", "HEAD") != mainTip || s.Git(s.Repo, "status", "--porcelain") != "" {
				t.Fatal("the main worktree was touched")
			}
			if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
				t.Fatalf("worktrees left behind:\n%s", wts)
			}
			gone(t, s, "T", path)
			if reflog := s.Git(s.Repo, "reflog", "-1", "--format=%gs", "dev"); !c.old && !strings.HasPrefix(reflog, "git wt merge: ") {
				t.Fatalf("dev's reflog says %q", reflog)
			}
		})
	}
}

func TestMergeConflictIntoABaseCheckedOutNowhere(t *testing.T) {
	for _, old := range []bool{false, true} {
		t.Run(map[bool]string{false: "merge-tree", true: "old git"}[old], func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path, taskTip, devTip := devSetup(t, s, true, true)
			wt := s
			if old {
				wt = gitSaysItIs(s, "2.37.7")
			}
			r := wt.WT("merge", "T")
			if r.Code != 1 || !strings.Contains(r.Stderr, "conflicts in README.md") {
				t.Fatalf("merge with a conflict: %s", r)
			}
			if s.Git(s.Repo, "rev-parse", "dev") != devTip || s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != taskTip || taskState(t, s) != "active" || !testutil.Exists(path) {
				t.Fatal("a conflicting merge changed something")
			}
			if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 2 {
				t.Fatalf("a temporary worktree was left behind:\n%s", wts)
			}
		})
	}
}

func TestMergeRebaseOfABranchCheckedOutNowhere(t *testing.T) {
	t.Parallel()
	s, path, _, mainTip := mergeSetup(t, true)
	// The task's worktree moved on to another branch: the rebase of wt/T
	// happens in a temporary worktree.
	s.Git(path, "switch", "-q", "-c", "elsewhere")
	r := s.WT("merge", "T", "--rebase", "--verbose")
	if r.Code != 0 || !strings.Contains(r.Stderr, "/.git-wt-tmp/") {
		t.Fatalf("merge --rebase of a branch checked out nowhere: %s", r)
	}
	if p := parents(s, "main"); len(p) != 1 || p[0] != mainTip || s.Git(s.Repo, "show", "main:task.txt") != "task" {
		t.Fatalf("main is not the task rebased onto it: parents %v", p)
	}
	if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Contains(wts, ".git-wt-tmp") {
		t.Fatalf("the temporary worktree was left behind:\n%s", wts)
	}
}
