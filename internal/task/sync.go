package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/record"
)

// EndSync ends a task's syncing state (SPEC §12): back to the state it
// had, and, when the sync was done, with the base and base_sha it synced
// with. A compare-and-swap signed by the syncing process, so it needs no
// repository lock: a doctor that took the task over makes it fail.
func (m *Manager) EndSync(ctx context.Context, e *record.Entry, done bool) error {
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
