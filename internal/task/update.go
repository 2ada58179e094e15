package task

import (
	"context"
	"errors"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// update applies change to the task's record and saves it with
// compare-and-swap. When another process changed the record since it was
// read (a PR refresh, a lock), it reads the record again and applies
// change to the fresh copy, as long as it is still the same task.
func (m *Manager) update(ctx context.Context, e *record.Entry, change func(*record.Record)) error {
	for attempt := 0; ; attempt++ {
		change(e.Record)
		err := m.save(ctx, e)
		if !errors.Is(err, git.ErrStale) || attempt >= maxRaces {
			return err
		}
		if err := m.reload(ctx, e); err != nil {
			return err
		}
	}
}

// reload reads the task's record again: another process may have changed
// it, or removed the task, since it was read.
func (m *Manager) reload(ctx context.Context, e *record.Entry) error {
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

// setState writes the task's state on a context of its own: it also runs
// after an interrupt, to put back what the command had changed.
func (m *Manager) setState(e *record.Entry, state record.State) {
	ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
	defer cancel()
	if err := m.update(ctx, e, func(r *record.Record) { r.State = state }); err != nil {
		m.Warn("could not set task %q back to state %s: %v (run git wt doctor)", e.Record.Task, state, err)
	}
}
