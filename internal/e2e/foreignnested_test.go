//go:build unix

// These tests protect gc --foreign (SPEC §20), and rm, from what git status does
// not show and git worktree remove deletes: a worktree inside another (the
// folder goes whole, the worktree in it too, whatever that one holds), and
// a local edit to a file marked assume-unchanged.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
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

func TestGCForeignKeepsALocalEditGitStatusDoesNotShow(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	// A user's trick for a local change to a tracked file: git status
	// (and git worktree remove's own check) no longer looks at it.
	path := l.paths["git"]
	s.Git(path, "update-index", "--assume-unchanged", "README.md")
	edit := "hello\nmy local settings, in no commit\n"
	s.Write(filepath.Join(path, "README.md"), edit)
	l.idle(path)

	r := l.gcForeignKeepsDirty(t)
	if data, err := os.ReadFile(filepath.Join(path, "README.md")); err != nil || string(data) != edit {
		t.Fatalf("gc --foreign removed a worktree with a local edit git status hides (%v): %s", err, r)
	}
}

// A worktree inside another whose .git file is gone is prunable to git,
// but its folder still holds its files.
func TestGCForeignKeepsAWorktreeThatHoldsAPrunableOneWithFiles(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	outer := l.paths["worktrunk"]
	inner := filepath.Join(outer, ".claude", "worktrees", "session")
	s.Git(outer, "worktree", "add", "-q", "-b", "session", inner)
	work := filepath.Join(inner, "work.txt")
	s.Write(work, "in no commit\n")
	os.Remove(filepath.Join(inner, ".git"))
	l.idle(outer)

	if r := s.WT("gc", "--foreign"); r.Code != 0 {
		t.Fatalf("gc --foreign: %s", r)
	}
	if !testutil.Exists(work) {
		t.Fatal("gc --foreign removed a worktree holding another's files")
	}
}

func TestRmRefusesATaskHoldingAPrunableWorktreeWithFiles(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	inner := filepath.Join(path, ".claude", "worktrees", "session")
	s.Git(path, "worktree", "add", "-q", "-b", "session", inner)
	work := filepath.Join(inner, "work.txt")
	s.Write(work, "in no commit\n")
	os.Remove(filepath.Join(inner, ".git"))

	if r := s.WT("rm", "--force", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "contains the worktree") {
		t.Errorf("rm --force of a task holding a worktree whose .git is gone: %s", r)
	}
	if !testutil.Exists(work) {
		t.Fatal("rm deleted the files of a worktree inside the task")
	}
}

// info/exclude is the common dir's, which any agent can write (SPEC §19):
// a `*` there makes every untracked file ignored, and git worktree remove
// deletes ignored files. Just before it removes, gc --foreign counts a
// file only info/exclude ignores as work.
func TestGCForeignKeepsWorkOnlyInfoExcludeIgnores(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	s.Write(filepath.Join(s.Repo, ".git", "info", "exclude"), ".claude/\n*\n")
	path := l.paths["git"]
	work := filepath.Join(path, "notes", "work.txt")
	s.Write(work, "in no commit\n")
	l.idle(path)

	r := l.gcForeignKeepsDirty(t)
	if !testutil.Exists(work) {
		t.Fatalf("gc --foreign removed untracked work that only info/exclude ignores: %s", r)
	}
}

// gcForeignKeepsDirty runs gc --foreign, which must succeed, say that it
// kept a worktree as dirty 1, and still remove the safe cursor worktree.
func (l *foreignLayout) gcForeignKeepsDirty(t *testing.T) testutil.Result {
	t.Helper()
	r := l.s.WT("gc", "--foreign")
	if r.Code != 0 {
		t.Fatalf("gc --foreign: %s", r)
	}
	if !strings.Contains(r.Stdout, "dirty 1") {
		t.Errorf("gc --foreign must say why it kept it: %s", r)
	}
	if testutil.Exists(l.paths["cursor"]) {
		t.Error("the worktrees safe to remove should go")
	}
	return r
}

// What a committed .gitignore ignores (build output) is not work: the
// worktree still goes, with info/exclude's `*` beside it.
func TestGCForeignRemovesWhatACommittedGitignoreIgnores(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	path := l.paths["git"]
	s.Write(filepath.Join(path, ".gitignore"), "build/\n")
	s.Git(path, "add", ".gitignore")
	s.Git(path, "commit", "-q", "-m", "ignore build output")
	s.Git(path, "push", "-q", "origin", "HEAD:refs/heads/plain")
	s.Write(filepath.Join(path, "build", "out.o"), "output\n")
	s.Write(filepath.Join(s.Repo, ".git", "info", "exclude"), ".claude/\n*\n")
	l.idle(path)

	if r := s.WT("gc", "--foreign"); r.Code != 0 || testutil.Exists(path) {
		t.Errorf("gc --foreign kept a worktree holding only what its committed .gitignore ignores: %s", r)
	}
}

// Claude Code's docs advise `.claude/` in info/exclude: a worktree that
// holds files there is kept too, the safe side.
func TestGCForeignKeepsAWorktreeHoldingClaudeFiles(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	path := l.paths["git"]
	s.Write(filepath.Join(path, ".claude", "settings.local.json"), "{}\n")
	l.idle(path)

	if r := s.WT("gc", "--foreign"); r.Code != 0 || !testutil.Exists(path) || !strings.Contains(r.Stdout, "dirty 1") {
		t.Errorf("gc --foreign of a worktree holding .claude/ files info/exclude ignores: %s", r)
	}
}
