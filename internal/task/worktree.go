package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// Refuse logs a refusal and returns the exit-3 error for it.
func (m *Manager) Refuse(rec *record.Record, reason, format string, args ...any) error {
	err := exitcode.Refusedf(format, args...)
	m.LogEvent(rec, "refused", reason+": "+err.Error())
	return err
}

// Registered reports whether git still has an admin entry for path.
func (m *Manager) Registered(ctx context.Context, path string) bool {
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	return err != nil || FindWorktree(wts, path) != nil
}

func FindWorktree(wts []git.Worktree, path string) *git.Worktree {
	for i := range wts {
		if wts[i].Path == path {
			return &wts[i]
		}
	}
	return nil
}

// TrashDir is where rm moves a worktree folder before deleting it.
const TrashDir = ".git-wt-trash"
