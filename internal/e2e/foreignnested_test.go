//go:build unix

// These tests protect gc --foreign (SPEC §20) from a worktree inside
// another: git worktree remove deletes the folder whole, the worktree in
// it too, whatever that one holds.
package e2e

import (
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestGCForeignKeepsAWorktreeThatHoldsAnother(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	// A Claude Code session started in the worktrunk worktree keeps its
	// own worktrees inside it (.claude/ is ignored): one with work in it.
	outer := l.paths["worktrunk"]
	inner := filepath.Join(outer, ".claude", "worktrees", "session")
	s.Git(outer, "worktree", "add", "-q", "-b", "session", inner)
	work := filepath.Join(inner, "work.txt")
	s.Write(work, "in no commit\n")
	l.idle(outer)

	views := listedAll(t, s.WT("list", "--all", "--json"))
	if v := views[outer]["verdict"]; v != "holds a worktree" {
		t.Errorf("the worktree holding another: verdict %v, want holds a worktree", v)
	}
	if r := s.WT("gc", "--foreign"); r.Code != 0 {
		t.Fatalf("gc --foreign: %s", r)
	}
	if !testutil.Exists(work) || !testutil.Exists(outer) {
		t.Fatal("gc --foreign removed a worktree holding another, and that one's work with it")
	}
	if testutil.Exists(l.paths["cursor"]) {
		t.Error("the worktrees safe to remove should go")
	}
}
