package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/record"
)

// EndSync ends a task's syncing state (SPEC §12), under the repository
// lock: back to the state it had, and, when the sync was done, with the
// base and base_sha it synced with.
func (m *Manager) EndSync(ctx context.Context, e *record.Entry, done bool) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	was := record.Active
	if s := e.Record.Sync; s != nil && s.Was == record.Adopted {
		was = record.Adopted
	}
	return m.Transition(ctx, e, was, func(r *record.Record) {
		if done && r.Sync != nil {
			r.Base, r.BaseSHA = r.Sync.Base, r.Sync.BaseSHA
		}
		r.Sync = nil
	})
}
