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
	wt := findWorktree(wts, rec.Path)
	if wt == nil {
		m.Warn("git does not list %s (run git wt doctor): only the record is %s", rec.Path, map[bool]string{true: "locked", false: "unlocked"}[locked])
	}
	// git refuses to lock a locked worktree or unlock an unlocked one: it
	// is asked only when its state differs, and a new reason replaces the
	// old one by an unlock and a lock.
	if wt != nil && (wt.Locked != locked || locked && wt.LockReason != reason) {
		if locked && wt.Locked {
			if _, err := m.Git.Run(ctx, m.Repo.MainDir, "worktree", "unlock", rec.Path); err != nil {
				return err
			}
		}
		if _, err := m.Git.Run(ctx, m.Repo.MainDir, args...); err != nil {
			return err
		}
	}
	err = m.update(ctx, e, func(r *record.Record) error {
		r.Locked, r.LockReason = locked, ""
		if locked {
			r.LockReason = reason
		}
		return nil
	})
	if err != nil {
		return err
	}
	outcome := "unlocked"
	if locked {
		outcome = "locked"
	}
	m.logEvent(e.Record, outcome, reason)
	return nil
}
