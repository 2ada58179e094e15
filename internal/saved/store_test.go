package saved

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// storeWithWorktree is the save store of a new repository with one commit
// and a linked worktree, and that worktree.
func storeWithWorktree(t *testing.T) (*Store, string) {
	t.Helper()
	root := githome.New(t)
	repo := filepath.Join(root, "repo")
	githome.Git(t, root, "init", "-q", repo)
	githome.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(root, "wt")
	githome.Git(t, repo, "worktree", "add", "-q", wt)
	return &Store{Git: &git.Runner{}, Dir: repo, CommonDir: filepath.Join(repo, ".git")}, wt
}

// The copy of a worktree's index a save stages into lives in git-wt's own
// folder: a git-wt killed mid-save leaves it, and git's lock on it, where
// no git and no doctor takes them for git's own files, and not outside
// the repository.
func TestTheIndexCopyIsInGitWtsOwnFolder(t *testing.T) {
	s, wt := storeWithWorktree(t)
	common := s.CommonDir
	err := s.withIndexCopy(context.Background(), wt, "", func(index string) error {
		if own := filepath.Join(common, "wt") + string(filepath.Separator); !strings.HasPrefix(index, own) {
			t.Errorf("the index copy %s is not in git-wt's own folder %s", index, own)
		}
		if _, err := os.Stat(index); err != nil {
			t.Errorf("no index copy at %s: %v", index, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A save killed mid-way leaves its index copy (and git's lock on it) in
// the save folder; the next save deletes those made a day ago, by the
// time in their names, and leaves a running save's, even one whose copy
// has the day-old time of an idle task's index (copyInto), and any file
// not named as a copy.
func TestASaveDeletesTheIndexCopiesOfKilledSaves(t *testing.T) {
	s, wt := storeWithWorktree(t)
	folder := filepath.Join(s.CommonDir, "wt", "save")
	os.MkdirAll(folder, 0o777)
	dayAgo := time.Now().Add(-killedCopyAge - time.Minute)
	killed := filepath.Join(folder, fmt.Sprintf("%d-7-8.index", dayAgo.Unix()))
	running := filepath.Join(folder, fmt.Sprintf("%d-9-10.index", time.Now().Unix()))
	other := filepath.Join(folder, "notes.txt")
	for _, f := range []string{killed, killed + ".lock", running, other} {
		os.WriteFile(f, []byte("DIRC"), 0o600)
		os.Chtimes(f, dayAgo, dayAgo)
	}
	if err := s.withIndexCopy(context.Background(), wt, "", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{killed, killed + ".lock"} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s, of a save killed a day ago, is still there", gone)
		}
	}
	for _, kept := range []string{running, other} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was deleted: %v", kept, err)
		}
	}
}

// An agent can write .git/wt: a link at .git/wt/save to a folder of the
// user's makes no save delete the user's day-old files there.
func TestASaveDeletesNothingThroughALinkedSaveFolder(t *testing.T) {
	s, wt := storeWithWorktree(t)
	victim := t.TempDir()
	old := time.Now().Add(-48 * time.Hour)
	files := []string{filepath.Join(victim, "thesis.tex"), filepath.Join(victim, fmt.Sprintf("%d-1-1.index", old.Unix()))}
	for _, f := range files {
		os.WriteFile(f, []byte("years of work"), 0o600)
		os.Chtimes(f, old, old)
	}
	os.MkdirAll(filepath.Join(s.CommonDir, "wt"), 0o777)
	if err := os.Symlink(victim, filepath.Join(s.CommonDir, "wt", "save")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	s.withIndexCopy(context.Background(), wt, "", func(string) error { return nil })
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a save deleted %s through the linked save folder: %v", f, err)
		}
	}
}

// A second save that starts while one runs on the index of a task idle
// for a day leaves the first one's copy alone.
func TestASecondSaveLeavesARunningSavesCopyOfAnIdleIndex(t *testing.T) {
	s, wt := storeWithWorktree(t)
	admin, err := git.WorktreeGitDir(wt, s.CommonDir)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(admin, "index"), old, old)
	err = s.withIndexCopy(context.Background(), wt, "", func(index string) error {
		other, err := s.tempIndex() // a second save begins
		if err == nil {
			other.Close()
			os.Remove(other.Name())
		}
		if _, err := os.Stat(index); err != nil {
			t.Errorf("a second save deleted the running save's index copy: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
