package saved

import (
	"context"
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
// the save folder; the next save deletes those a day old, and leaves a
// running save's.
func TestASaveDeletesTheIndexCopiesOfKilledSaves(t *testing.T) {
	s, wt := storeWithWorktree(t)
	folder := filepath.Join(s.CommonDir, "wt", "save")
	os.MkdirAll(folder, 0o777)
	killed, running := filepath.Join(folder, "1-1.index"), filepath.Join(folder, "2-2.index")
	for _, f := range []string{killed, killed + ".lock", running} {
		os.WriteFile(f, []byte("DIRC"), 0o600)
	}
	old := time.Now().Add(-killedCopyAge - time.Minute)
	os.Chtimes(killed, old, old)
	os.Chtimes(killed+".lock", old, old)
	if err := s.withIndexCopy(context.Background(), wt, "", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(killed); err == nil {
		t.Error("the index copy of a save killed a day ago is still there")
	}
	if _, err := os.Lstat(killed + ".lock"); err == nil {
		t.Error("git's lock on the index copy of a save killed a day ago is still there")
	}
	if _, err := os.Lstat(running); err != nil {
		t.Errorf("the index copy of a save at work now was deleted: %v", err)
	}
}
