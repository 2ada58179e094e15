package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
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

// RefuseNested refuses (exit 3, even with --force) to remove the task's
// worktree while another registered worktree lies inside it: deleting the
// folder would delete that worktree's files too. An entry whose folder is
// gone (prunable) holds nothing to lose.
func (m *Manager) RefuseNested(rec *record.Record, wts []git.Worktree) error {
	for _, wt := range wts {
		if wt.Path != rec.Path && !wt.Prunable && fsutil.Within(rec.Path, wt.Path) {
			return m.Refuse(rec, "contains-worktree", "%s contains the worktree %s: remove that one first (git-wt never deletes a worktree with another inside it)", rec.Path, wt.Path)
		}
	}
	return nil
}
