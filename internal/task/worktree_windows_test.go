package task

import (
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/events"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// On Windows git prints C:/… and may spell a path in another case than
// git-wt's record: the task's own worktree is still found, and is not
// taken for another worktree inside it.
func TestATasksWorktreeIsFoundInAnySpellingOnWindows(t *testing.T) {
	m := &Manager{Events: &events.Log{Path: filepath.Join(t.TempDir(), "events.jsonl")}, Warn: t.Logf}
	rec := &record.Record{Task: "T", Path: `C:\src\repo-worktrees\T`}
	wts := []git.Worktree{{Path: `C:\src\repo`}, {Path: filepath.Clean(`c:/SRC/repo-worktrees/t`)}}
	if FindWorktree(wts, rec.Path) != &wts[1] {
		t.Errorf("FindWorktree did not find %s among %+v", rec.Path, wts)
	}
	if err := m.RefuseNested(rec, wts); err != nil {
		t.Errorf("the task's own worktree taken for one inside it: %v", err)
	}
}
