//go:build unix

// These tests protect a plain rm (SPEC §7: without --force it never
// deletes uncommitted work) from what git status does not look at: a
// local edit to a file whose index entry is marked assume-unchanged or
// skip-worktree.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestRmRefusesALocalEditGitStatusDoesNotShow(t *testing.T) {
	for _, flag := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(flag, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			s.Git(path, "update-index", flag, "README.md")
			edit := "hello\nmy local settings, in no commit\n"
			readme := filepath.Join(path, "README.md")
			s.Write(readme, edit)

			r := s.WT("rm", "T")
			if data, err := os.ReadFile(readme); err != nil || string(data) != edit {
				t.Fatalf("rm without --force deleted a local edit git status hides (%v): %s", err, r)
			}
			if r.Code != 3 || !strings.Contains(r.Stderr, "1 uncommitted change") {
				t.Errorf("rm of a task with a hidden local edit: %s, want exit 3 and the change counted", r)
			}

			// --force discards it, saved first.
			s.MustWT("rm", "--force", "T")
			if refs := trashRefs(s); len(refs) != 2 {
				t.Fatalf("rm --force saved %v: want the local edit saved", refs)
			}
		})
	}
}

// A file marked but untouched is no work: rm removes the task.
func TestRmRemovesATaskWithAnUntouchedHiddenFile(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(path, "update-index", "--assume-unchanged", "README.md")
	s.MustWT("rm", "T")
	if testutil.Exists(path) {
		t.Error("rm kept a task whose marked file holds no change")
	}
}

// A hidden edit made after rm's first look is seen by its second, once
// the folder is moved aside: the task is put back with it.
func TestRmKeepsAHiddenEditMadeAfterItsCheck(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(path, "update-index", "--assume-unchanged", "README.md")
	rm, goOn := pauseAt(t, s, "rm:checked", "rm", "T")
	edit := "hello\nedited while rm ran\n"
	s.Write(filepath.Join(path, "README.md"), edit)
	goOn()
	if code := exitCode(rm); code != 3 {
		t.Fatalf("rm of a worktree with a hidden edit made after its check exited %d, want 3", code)
	}
	if data, err := os.ReadFile(filepath.Join(path, "README.md")); err != nil || string(data) != edit {
		t.Fatalf("the hidden edit is lost (%v)", err)
	}
	trashIsEmpty(t, path)
}

// In a sparse checkout every file outside the cone is marked
// skip-worktree; one written back with a change is work all the same
// (git itself shows it, and rm does not skip asking where git does not).
func TestRmOfASparseTaskKeepsAChangeOutsideItsCone(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, d := range []string{"a", "c"} {
		s.Write(filepath.Join(d, "f.txt"), d+"\n")
	}
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "two folders")
	path := s.MustWT("new", "T", "--sparse", "a").Out()
	outside := filepath.Join(path, "c", "f.txt")
	s.Write(outside, "changed outside the cone\n")

	if r := s.WT("rm", "T"); r.Code != 3 || !testutil.Exists(outside) {
		t.Fatalf("rm of a sparse task with a change outside its cone: %s", r)
	}
	clean := s.MustWT("new", "U", "--sparse", "a").Out()
	s.MustWT("rm", "U")
	if testutil.Exists(clean) {
		t.Error("rm kept a sparse task with no change")
	}
}
