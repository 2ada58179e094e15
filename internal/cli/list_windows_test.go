package cli

import (
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/record"
)

// On Windows git may spell a task's worktree otherwise than its record
// (C:/… in another case): list shows it once, as the task, not again as a
// worktree git-wt does not manage.
func TestListShowsATasksWorktreeOnceInAnySpellingOnWindows(t *testing.T) {
	lives := []inspect.Live{{Entry: record.Entry{Record: &record.Record{Task: "T", Path: `C:\src\repo-worktrees\T`}}}}
	wts := []git.Worktree{{Path: filepath.Clean(`c:/SRC/repo-worktrees/t`)}}
	if views := unmanagedViews(wts, lives, func(string) bool { return false }); len(views) != 0 {
		t.Errorf("the task's worktree is listed again as unmanaged: %+v", views[0].Record)
	}
}
