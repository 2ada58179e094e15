package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
)

// SetLocked locks or unlocks a task's worktree: git's own lock (`git
// worktree lock`, which git's prune respects too) and the record, which gc,
// rm and merge-time cleanup check.
func (m *Manager) SetLocked(ctx context.Context, e *record.Entry, locked bool, reason string) error {
	rec := e.Record
	if rec.State == record.Creating || rec.State == record.Initializing {
		return exitcode.Refusedf("task %q is still being created: lock it once git wt new has finished", rec.Task)
	}
	args := []string{"worktree", "unlock", rec.Path}
	if locked {
		args = []string{"worktree", "lock", rec.Path}
		if reason != "" {
			args = append(args, "--reason", reason)
		}
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return err
	}
	// git refuses to lock a locked worktree or unlock an unlocked one:
	// ask it only when its state differs.
	if wt := findWorktree(wts, rec.Path); wt != nil && (wt.Locked != locked || locked && wt.LockReason != reason) {
		if locked && wt.Locked {
			m.Git.Run(ctx, m.Repo.MainDir, "worktree", "unlock", rec.Path)
		}
		if _, err := m.Git.Run(ctx, m.Repo.MainDir, args...); err != nil {
			return err
		}
	}
	rec.Locked, rec.LockReason = locked, ""
	if locked {
		rec.LockReason = reason
	}
	if err := m.save(ctx, e); err != nil {
		return err
	}
	outcome := "unlocked"
	if locked {
		outcome = "locked"
	}
	m.logEvent(rec, outcome, reason)
	return nil
}
