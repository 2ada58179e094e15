//go:build unix

// These tests protect repositories that share a base dir (SPEC §14 "The
// sibling layout"): git-wt's own folders there (trash, pool, merge
// temporaries) are each repository's own, named after it, so that doctor
// and gc in one repository never judge or delete another's pool entries
// or a stuck removal's folder; a base dir that holds the main worktree
// (wt.baseDir ..) works, and nothing else in it is ever judged.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// sharedBaseDirRepo is a sandbox whose base dir is shared, with one pool
// entry and a stuck removal of task T (killed once its folder was in the
// trash); it returns the entry's path.
func sharedBaseDirRepo(t *testing.T, shared string) (s *testutil.Sandbox, entry string) {
	s = testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", shared)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	s.Git(s.Repo, "config", "wt.gcInterval", "0")
	t.Cleanup(func() { waitForFills(t, s) })
	entry = oneEntry(t, s, false)
	path := s.MustWT("new", "-q", "T").Out()
	kill(stopAt(t, s, "rm:renamed", "rm", "T"))
	if testutil.Exists(path) {
		t.Fatalf("the killed rm did not move %s aside", path)
	}
	return s, entry
}

// trashOf lists what the trash folders of every repository in dir hold.
func trashOf(dir string) []string {
	moved, _ := filepath.Glob(filepath.Join(dir, ".git-wt-trash*", "T.*"))
	return moved
}

func TestReposSharingABaseDirNeverTouchEachOthersFolders(t *testing.T) {
	t.Parallel()
	shared := filepath.Join(t.TempDir(), "worktrees")
	a, entryA := sharedBaseDirRepo(t, shared)
	trashA := trashOf(shared)
	b, entryB := sharedBaseDirRepo(t, shared)
	var trashB []string
	for _, p := range trashOf(shared) {
		if !strings.Contains(strings.Join(trashA, "\n"), p) {
			trashB = append(trashB, p)
		}
	}
	if len(trashA) != 1 || len(trashB) != 1 || filepath.Dir(trashA[0]) == filepath.Dir(trashB[0]) || filepath.Dir(entryA) == filepath.Dir(entryB) {
		t.Fatalf("the two repositories share git-wt's folders: trash %v and %v, pool entries %s and %s", trashA, trashB, entryA, entryB)
	}
	a.WT("doctor", "--fix")
	a.WT("gc")
	if !testutil.Exists(entryB) || !testutil.Exists(trashB[0]) || recordState(b, "T") != "removing" {
		t.Fatalf("doctor --fix and gc in one repository touched the other's pool entry %s or trash %s", entryB, trashB[0])
	}
	if testutil.Exists(trashA[0]) {
		t.Errorf("doctor --fix did not finish its own stuck removal: %s", trashA[0])
	}
	// And the other way round, after which each is whole again.
	b.WT("doctor", "--fix")
	b.WT("gc")
	if !testutil.Exists(entryA) {
		t.Fatalf("doctor --fix and gc in the second repository removed the first's pool entry %s", entryA)
	}
	for _, s := range []*testutil.Sandbox{a, b} {
		if r := s.WT("doctor"); r.Code != 0 {
			t.Errorf("doctor after the fixes: %s", r)
		}
	}
}

// An upgrade keeps what an earlier git-wt left in the plain .pool and
// .git-wt-trash of a shared base dir: this repository's entries there are
// still its own (their refs say so), and what its refs do not name is
// never judged.
func TestAnUpgradeKeepsThePlainFoldersOfASharedBaseDir(t *testing.T) {
	t.Parallel()
	shared := filepath.Join(t.TempDir(), "worktrees")
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", shared)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	t.Cleanup(func() { waitForFills(t, s) })
	entry := oneEntry(t, s, false)
	// As an earlier git-wt made it: in the plain .pool.
	old := filepath.Join(shared, ".pool", filepath.Base(entry))
	os.MkdirAll(filepath.Dir(old), 0o777)
	s.Git(s.Repo, "worktree", "move", entry, old)
	ref := "refs/git-wt/pool/" + filepath.Base(entry)
	blob := strings.Replace(s.Git(s.Repo, "cat-file", "blob", ref), entry, old, 1)
	s.Git(s.Repo, "update-ref", ref, gitHashObject(t, s, blob))
	// Someone else's, from another repository, in the same folders.
	foreign := []string{filepath.Join(shared, ".pool", "other-entry", "f"), filepath.Join(shared, ".git-wt-trash", "X.1", "f")}
	for _, f := range foreign {
		s.Write(f, "not this repository's")
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Errorf("doctor --fix: %s", r)
	}
	s.WT("gc")
	for _, f := range foreign {
		if !testutil.Exists(f) {
			t.Errorf("doctor or gc deleted %s, which is not this repository's", f)
		}
	}
	s.Git(s.Repo, "config", "wt.pool", "1")
	if got := s.MustWT("new", "-q", "T").Out(); fromEntry(got) == "" && testutil.Exists(old) {
		t.Errorf("the entry in the plain .pool was not claimed")
	}
}

func gitHashObject(t *testing.T, s *testutil.Sandbox, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(f, []byte(content), 0o644)
	return s.Git(s.Repo, "hash-object", "-w", f)
}

// The sibling layout: tasks beside the repository, as git worktree add
// ../x users, Review-Cat and Aura lay them out.
func TestTheSiblingLayoutWorksAndJudgesNothingElse(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", "..")
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	parent := filepath.Dir(s.Repo)
	// Beside the repository: a folder of someone else's, and another
	// repository's worktree folder.
	s.Write(filepath.Join(parent, "notes", "todo.txt"), "mine\n")
	s.Write(filepath.Join(parent, "repo-old-copy", "file.txt"), "mine\n")
	path := s.MustWT("new", "-q", "repo-fix-1").Out()
	if path != filepath.Join(parent, "repo-fix-1") {
		t.Fatalf("the task is at %s, want beside the repository", path)
	}
	if r := s.WT("new", "repo"); r.Code == 0 {
		t.Fatalf("a task at the main worktree's own folder: %s", r)
	}
	if r := s.WT("new", "notes"); r.Code == 0 {
		t.Fatalf("a task in an existing folder that is not empty: %s", r)
	}
	if r := s.WT("new", "x", "--path", "repo/sub"); r.Code != 2 {
		t.Fatalf("--path inside the main worktree: %s", r)
	}
	if out := s.MustWT("list").Out(); !strings.Contains(out, "repo-fix-1") || strings.Contains(out, "notes") {
		t.Fatalf("list:\n%s", out)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor judged something beside the repository: %s", r)
	}
	s.MustWT("doctor", "--fix")
	s.MustWT("gc")
	s.MustWT("rm", "repo-fix-1")
	testutil.WaitForDeleters(t, parent)
	for _, f := range []string{"notes/todo.txt", "repo-old-copy/file.txt", "repo/README.md"} {
		if !testutil.Exists(filepath.Join(parent, f)) {
			t.Errorf("%s is gone", f)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(parent, ".git-wt-*")); testutil.Exists(path) || len(left) > 0 {
		t.Errorf("rm left %s or git-wt's folders %v", path, left)
	}
	// An untrusted .gitwt may not put worktrees beside the repository.
	s.Git(s.Repo, "config", "--unset", "wt.baseDir")
	s.Write(".gitwt", "[wt]\n\tbaseDir = ..\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "gitwt")
	if r := s.MustWT("new", "-q", "u"); !strings.HasPrefix(r.Out(), filepath.Join(parent, "repo-worktrees")) || !strings.Contains(r.Stderr, "ignored wt.baseDir") {
		t.Fatalf("an untrusted .gitwt's baseDir .. was not ignored: %s", r)
	}
}
