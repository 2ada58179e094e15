package leftover

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// LockMismatch is a record and git's admin entry that disagree on
// whether the worktree is locked: a `git wt lock` killed between its two
// writes, or a `git worktree lock`/`unlock` run by hand.
const LockMismatch task.Kind = "lock-mismatch"

// DiagnoseLock reports a task whose record and git's admin entry disagree
// on its lock. git's entry is the later write of `git wt lock` and the
// one a person changes by hand, so the fix makes the record follow it.
// git's own "initializing" lock is a killed `git worktree add`'s, reported
// as such (leftovers.go).
func (m *Sweeper) DiagnoseLock(e *record.Entry, wt *git.Worktree, p *task.Problem) *task.Problem {
	rec := e.Record
	if wt == nil || wt.Locked == rec.Locked || wt.LockReason == initializingReason {
		return nil
	}
	p.Kind, p.Age = LockMismatch, -1
	p.Detail = fmt.Sprintf("git has the worktree %s, its record %s", lockWord(wt.Locked), lockWord(rec.Locked))
	p.Fix = "make the record say what git says"
	p.FixWith = func(ctx context.Context, _ bool) error {
		fixed := *rec
		fixed.Locked, fixed.LockReason = wt.Locked, wt.LockReason
		claimed := *e
		claimed.Record = &fixed
		if err := m.Save(ctx, &claimed); errors.Is(err, git.ErrStale) {
			return task.ErrMovedOn // a lock or unlock since doctor looked: it wrote both
		} else if err != nil {
			return err
		}
		*e = claimed
		return nil
	}
	return p
}

func lockWord(locked bool) string {
	if locked {
		return "locked"
	}
	return "unlocked"
}
