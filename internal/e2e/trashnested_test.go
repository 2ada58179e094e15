//go:build unix

// These tests protect SPEC §20's "every removal can be undone" where git
// add -A does not take what a worktree holds: a git repository made
// inside it (a clone, a git init), which it saves as a gitlink, the id of
// its HEAD and nothing of its files (refused); and a local edit to a file
// marked assume-unchanged, which it does not look at (saved).
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestRmForceRefusesARepositoryInsideTheWorktreeItCannotSave(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	inner := filepath.Join(path, "inner")
	s.Git(path, "init", "-q", "inner")
	s.Write(filepath.Join(inner, "committed.txt"), "in a commit of the inner repository only\n")
	s.Git(inner, "add", ".")
	s.Git(inner, "commit", "-q", "-m", "inner work")
	s.Write(filepath.Join(inner, "uncommitted.txt"), "in no commit\n")

	r := s.WT("rm", "--force", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "inner") {
		t.Fatalf("rm --force of a task holding a repository no saved state can hold: %s", r)
	}
	for _, f := range []string{"committed.txt", "uncommitted.txt"} {
		if !testutil.Exists(filepath.Join(inner, f)) {
			t.Errorf("the refused removal lost %s", f)
		}
	}
	if refs := trashRefs(s); len(refs) != 0 {
		t.Errorf("a refused removal saved %v", refs)
	}

	// Moved out, the rest is saved and removed as ever.
	s.Git(path, "rm", "-q", "-r", "--cached", "--ignore-unmatch", "inner")
	if err := os.Rename(inner, filepath.Join(t.TempDir(), "inner")); err != nil {
		t.Fatal(err)
	}
	s.Write(filepath.Join(path, "notes.txt"), "notes\n")
	s.MustWT("rm", "--force", "T")
	if refs := trashRefs(s); len(refs) != 2 {
		t.Errorf("rm --force after the repository moved out saved %v", refs)
	}
}

func TestRmForceSavesALocalEditToAFileMarkedAssumeUnchanged(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(path, "update-index", "--assume-unchanged", "README.md")
	edit := "hello\nmy local settings, in no commit\n"
	s.Write(filepath.Join(path, "README.md"), edit)
	s.MustWT("rm", "--force", "T")
	if refs := trashRefs(s); len(refs) != 2 {
		t.Fatalf("rm --force saved %v: want the local edit saved", refs)
	}
	s.MustWT("restore", "T")
	if data, err := os.ReadFile(filepath.Join(path, "README.md")); err != nil || string(data) != edit {
		t.Fatalf("restore brought back %q (%v), want the local edit", data, err)
	}
}

// A removal refused before anything was removed says so of the branch
// too: a script reading rm --json must not take the branch for deleted.
func TestARefusedForcedRemovalReportsItsBranchKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(path, "init", "-q", "inner")
	s.Write(filepath.Join(path, "inner", "f.txt"), "inner work\n")
	s.Git(filepath.Join(path, "inner"), "add", ".")
	s.Git(filepath.Join(path, "inner"), "commit", "-q", "-m", "inner")

	r := s.WT("rm", "--force", "--json", "T")
	if r.Code != 3 {
		t.Fatalf("rm --force of a task whose nested repository cannot be saved: %s", r)
	}
	if strings.Contains(r.Stdout, `"branch_outcome": "deleted"`) {
		t.Errorf("the refused removal reports its branch deleted:\n%s", r.Stdout)
	}
	if s.Git(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") == "" {
		t.Error("the branch wt/T is gone")
	}
}
