package testutil

import (
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/removal"
)

// isDeleterOf says whether argv is a deleter's of a folder under dir.
func isDeleterOf(argv []string, dir string) bool {
	return len(argv) == 3 && argv[1] == removal.DeleteTrashCommand && fsutil.Within(dir, argv[2])
}

// WaitForDeleters waits until no deleter of a folder under dir runs: the
// trash rm left is then all deleted, or left by a deleter that failed.
func WaitForDeleters(t testing.TB, dir string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for DeleterRunning(dir) {
		if time.Now().After(deadline) {
			t.Errorf("a deleter of a removed task's folder under %s still runs after a minute", dir)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
