// This test protects which lock files new may judge and delete past its
// ref transaction: only the repository's own refs', reached through real
// folders — never one a link in refs/ leads git to.
package task

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
)

func TestOnlyTheRefsOwnLockFilesAreRefLocks(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	os.MkdirAll(filepath.Join(common, "refs", "heads", "wt"), 0o777)
	elsewhere := filepath.Join(root, "project")
	os.MkdirAll(elsewhere, 0o777)
	os.Symlink(elsewhere, filepath.Join(common, "refs", "heads", "linked"))
	m := &Manager{Repo: &git.Repo{CommonDir: common}}
	for _, c := range []struct {
		lock string
		want bool
	}{
		{filepath.Join(common, "refs", "heads", "wt", "T.lock"), true},
		{filepath.Join(common, "refs", "git-wt", "tasks", "T.lock"), false}, // no such folder
		{filepath.Join(common, "packed-refs.lock"), true},
		{filepath.Join(common, "index.lock"), false},
		{filepath.Join(common, "refs"), false},
		{filepath.Join(elsewhere, "Cargo.lock"), false},
		{filepath.Join(common, "refs", "heads", "linked", "Cargo.lock"), false}, // through a link
	} {
		if got := m.refLock(c.lock); got != c.want {
			t.Errorf("refLock(%s) = %v, want %v", c.lock, got, c.want)
		}
	}
}
