//go:build !linux

package testutil

import (
	"path/filepath"

	"github.com/git-wt/git-wt/internal/lock"
)

// FillRunning says whether a `git wt pool --fill` runs in repo (a main
// worktree): new and gc start one in the background, which outlives the
// command and must end before a test looks at the pool or its sandbox goes.
// Without /proc it is the fill's lock, held while it works: a fill that
// has started and not yet taken it reads as not running.
func FillRunning(repo string) bool {
	l, free, err := lock.TryAcquire(filepath.Join(repo, ".git", "wt", "pool.lock"))
	if err != nil {
		return false
	}
	if free {
		l.Release()
	}
	return !free
}
