package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
)

// SetLocked locks or unlocks a task's worktree: git's own lock (`git
// worktree lock`, which git's prune respects too) and the record, which gc,
// rm and merge-time cleanup check. Both are idempotent: locking a locked
// task (or unlocking an unlocked one) succeeds, also when another git-wt
// does the same at the same moment. reason nil (no --reason) keeps the
// reason the task was locked with before.
func (m *Manager) SetLocked(ctx context.Context, e *record.Entry, locked bool, reason *string) error {
	// Under the repository lock: git refuses to lock a locked worktree, so
	// two locks at once must not both find it unlocked; and git's worktree
	// commands must not meet a half-made `git worktree add`.
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if err := m.Reload(ctx, e); err != nil {
		return err
	}
	rec := e.Record
	if rec.State == record.Creating || rec.State == record.Initializing {
		return exitcode.Refusedf("task %q is still being created: lock it once git wt new has finished", rec.Task)
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return err
	}
	wt := FindWorktree(wts, rec.Path)
	if wt == nil {
		m.Warn("git does not list %s (run git wt doctor): only the record is %s", rec.Path, map[bool]string{true: "locked", false: "unlocked"}[locked])
	}
	why := ""
	if locked {
		switch {
		case reason != nil:
			why = *reason
		case wt != nil && wt.Locked:
			why = wt.LockReason
		case rec.Locked:
			why = rec.LockReason
		}
	}
	// git refuses to lock a locked worktree or unlock an unlocked one: it
	// is asked only when its state differs, and a new reason replaces the
	// old one by an unlock and a lock.
	if wt != nil && (wt.Locked != locked || locked && wt.LockReason != why) {
		if wt.Locked {
			if err := m.Git.UnlockWorktree(ctx, m.Repo.MainDir, rec.Path); err != nil {
				return err
			}
		}
		if locked {
			if err := m.Git.LockWorktree(ctx, m.Repo.MainDir, rec.Path, why); err != nil {
				return err
			}
		}
	}
	err = m.Update(ctx, e, func(r *record.Record) error {
		r.Locked, r.LockReason = locked, why
		return nil
	})
	if err != nil {
		return err
	}
	outcome := "unlocked"
	if locked {
		outcome = "locked"
	}
	m.LogEvent(e.Record, outcome, why)
	return nil
}
