//go:build unix

// These tests protect sparse task worktrees (SPEC §11): only the chosen
// directories and the root files are ever written, never a full checkout
// first; patterns come from --sparse, wt.sparse or the worktree new was
// started in; and one worktree's patterns never change another's.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// sparseRepo makes directories a, b and c with a file each; every file
// written under b runs a smudge filter that leaves a mark, so a checkout
// that writes b even once is seen.
func sparseRepo(t *testing.T) (s *testutil.Sandbox, mark string) {
	s = testutil.NewSandbox(t)
	for _, d := range []string{"a", "b", "c"} {
		s.Write(filepath.Join(d, "f.txt"), d+"\n")
	}
	s.Write(".gitattributes", "b/** filter=trap\n")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "three folders")
	mark = filepath.Join(t.TempDir(), "b-was-written")
	s.Git(s.Repo, "config", "filter.trap.smudge", "touch "+mark+"; cat")
	s.Git(s.Repo, "config", "filter.trap.clean", "cat")
	return s, mark
}

// checkedOut lists the top-level entries of a worktree, .git left out.
func checkedOut(t *testing.T, path string) string {
	t.Helper()
	entries, err := os.ReadDir(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != ".git" {
			names = append(names, e.Name())
		}
	}
	return strings.Join(names, " ")
}

func TestNewSparseWritesOnlyItsDirectories(t *testing.T) {
	s, mark := sparseRepo(t)
	r := s.MustWT("new", "T", "--sparse", "a", "--sparse", "c/")
	path := r.Out()
	if got := checkedOut(t, path); got != ".gitattributes .gitignore README.md a c" {
		t.Errorf("the sparse worktree holds %q", got)
	}
	if testutil.Exists(mark) {
		t.Error("b was written: a full checkout came first")
	}
	if !strings.Contains(r.Stderr, "extensions.worktreeConfig") {
		t.Errorf("turning per-worktree config on was not said: %s", r)
	}
	clean(t, s, path)
	if rec := readRecord(t, s, "T"); strings.Join(anyStrings(rec["sparse"]), ",") != "a,c" {
		t.Errorf("record sparse %v", rec["sparse"])
	}
	if out := s.MustWT("list").Stdout; !strings.Contains(out, "sparse") {
		t.Errorf("list does not say the task is sparse:\n%s", out)
	}
	// The main worktree keeps its full checkout; the next sparse new says
	// nothing more about config.
	if got := checkedOut(t, s.Repo); got != ".gitattributes .gitignore README.md a b c" || s.GitOK(s.Repo, "sparse-checkout", "list") {
		t.Errorf("the main worktree changed: %q", got)
	}
	if r := s.MustWT("new", "U", "--sparse", "c"); strings.Contains(r.Stderr, "worktreeConfig") {
		t.Errorf("said again: %s", r)
	}
	if r := s.WT("new", "V", "--sparse", "../x"); r.Code != 2 || testutil.Exists(filepath.Join(filepath.Dir(path), "V")) {
		t.Errorf("a sparse directory outside the worktree: %s", r)
	}
}

func TestSparsePatternsComeFromFlagConfigOrTheCurrentWorktree(t *testing.T) {
	s, mark := sparseRepo(t)
	parent := s.MustWT("new", "P", "--sparse", "a").Out()
	// Started from inside a sparse task: the same directories.
	child := s.WTIn(parent, "new", "child")
	if child.Code != 0 || checkedOut(t, strings.TrimSpace(child.Stdout)) != ".gitattributes .gitignore README.md a" {
		t.Errorf("a task started in a sparse worktree: %s", child)
	}
	// Unless wt.sparseInherit is off: a full checkout.
	s.Git(s.Repo, "config", "wt.sparseInherit", "false")
	full := s.WTIn(parent, "new", "full")
	if full.Code != 0 || checkedOut(t, strings.TrimSpace(full.Stdout)) != ".gitattributes .gitignore README.md a b c" {
		t.Errorf("with wt.sparseInherit false: %s", full)
	}
	if !testutil.Exists(mark) {
		t.Fatal("a full checkout did not write b: the trap that tells a full checkout does not work")
	}
	os.Remove(mark)
	// wt.sparse for every new task, from the main worktree.
	s.Git(s.Repo, "config", "--add", "wt.sparse", "c")
	if got := checkedOut(t, s.MustWT("new", "W").Out()); got != ".gitattributes .gitignore README.md c" || testutil.Exists(mark) {
		t.Errorf("with wt.sparse c: %q", got)
	}
}

func TestAFullTaskFromASparseMainWorktreeIsFull(t *testing.T) {
	s, _ := sparseRepo(t)
	s.MustWT("new", "first", "--sparse", "a") // turns per-worktree config on
	s.Git(s.Repo, "sparse-checkout", "set", "b")
	s.Git(s.Repo, "config", "wt.sparseInherit", "false")
	// git worktree add copies the main worktree's patterns: new drops them.
	if got := checkedOut(t, s.MustWT("new", "T").Out()); got != ".gitattributes .gitignore README.md a b c" {
		t.Errorf("a full task from a sparse main worktree holds %q", got)
	}
	if got := checkedOut(t, s.MustWT("new", "U", "--sparse", "c").Out()); got != ".gitattributes .gitignore README.md c" {
		t.Errorf("--sparse c from a sparse main worktree holds %q", got)
	}
	if got := checkedOut(t, s.Repo); got != ".gitattributes .gitignore README.md b" {
		t.Errorf("the main worktree's own patterns changed: %q", got)
	}
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
