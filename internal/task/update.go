package task

import (
	"context"
	"errors"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// Update applies change to the task's record and saves it with
// compare-and-swap. When another process changed the record since it was
// read (a PR refresh, a lock), it reads the record again and applies
// change to the fresh copy, as long as it is still the same task. A change
// that returns an error saves nothing.
func (m *Manager) Update(ctx context.Context, e *record.Entry, change func(*record.Record) error) error {
	for attempt := 0; ; attempt++ {
		if err := change(e.Record); err != nil {
			return err
		}
		err := m.save(ctx, e)
		if !errors.Is(err, git.ErrStale) || attempt >= maxRaces {
			return err
		}
		if err := m.Reload(ctx, e); err != nil {
			return err
		}
	}
}

// Transition moves the task to state to, signed by this process, and
// applies also (when set) in the same compare-and-swap write. It is the
// only way a command changes a task's state: record.Move refuses a move
// the lifecycle does not allow, checked again on the fresh record when
// another process changed it meanwhile.
func (m *Manager) Transition(ctx context.Context, e *record.Entry, to record.State, also func(*record.Record)) error {
	me := self()
	return m.Update(ctx, e, func(r *record.Record) error {
		if err := r.Move(to, me); err != nil {
			return notNow(r, to, err)
		}
		if also != nil {
			also(r)
		}
		return nil
	})
}

// notNow turns a move the task's present state does not allow into a
// refusal (exit 3, nothing changed) that says what to do: another process
// is working on the task, or its setup failed and waits for the user.
func notNow(r *record.Record, to record.State, err error) error {
	if !errors.Is(err, record.ErrIllegalMove) {
		return err
	}
	if r.State == record.Failed {
		return exitcode.Refusedf("task %q cannot go to state %s: its setup failed; look at %s, then run git wt init %s, or git wt rm %s", r.Task, to, r.Path, r.Slug, r.Slug)
	}
	return exitcode.Refusedf("task %q cannot go to state %s: it is %s (process %d on %s); try again when that is done, or run git wt doctor if that process died", r.Task, to, r.State, r.CreatorPID, r.CreatorHost)
}

// self is this process as a record's owner.
func self() record.Owner {
	me := proc.Self()
	return record.Owner{PID: me.PID, Host: me.Host, Start: me.Start}
}

// Reload reads the task's record again: another process may have changed
// it, or removed the task, since it was read.
func (m *Manager) Reload(ctx context.Context, e *record.Entry) error {
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return err
	}
	if len(fresh) == 0 || fresh[0].Record == nil || fresh[0].Record.Path != e.Record.Path {
		return exitcode.NotFoundf("task %q was removed or replaced meanwhile (see git wt log %s)", e.Record.Task, e.Slug)
	}
	*e = fresh[0]
	return nil
}

// SetState moves the task to state on a context of its own: it also runs
// after an interrupt, to put back what the command had changed.
func (m *Manager) SetState(e *record.Entry, state record.State) {
	ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
	defer cancel()
	if err := m.Transition(ctx, e, state, nil); err != nil {
		m.Warn("could not set task %q back to state %s: %v (run git wt doctor)", e.Record.Task, state, err)
	}
}
