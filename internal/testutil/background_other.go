//go:build !linux

package testutil

import (
	"os/exec"
	"path/filepath"
	"strings"

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

// DeleterRunning says whether a deleter of a removed task's folder runs
// for a folder under dir: rm starts one in the background (git-wt
// __delete-trash TRASH/SLUG), which outlives rm. Without /proc, ps says
// (a folder with a space in its path reads as two words).
func DeleterRunning(dir string) bool {
	out, _ := exec.Command("ps", "-Ao", "args=").Output()
	for _, line := range strings.Split(string(out), "\n") {
		if isDeleterOf(strings.Fields(line), dir) {
			return true
		}
	}
	return false
}
