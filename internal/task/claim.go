package task

import (
	"context"
	"errors"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// ErrMovedOn is a repair that found its task changed since it was
// examined: there is nothing to repair any more.
var ErrMovedOn = errors.New("the task changed since it was examined")

// ClaimForRepair signs the record e with this process, compare-and-swap
// against the blob examined (e.OID), after checking again that its owner
// is not alive. Other processes then see a live owner and wait. It never
// re-reads and retries: a record that changed returns errMovedOn.
func (m *Manager) ClaimForRepair(ctx context.Context, e *record.Entry) error {
	if proc.Check(Owner(e.Record)) == proc.Alive {
		return ErrMovedOn
	}
	rec := *e.Record
	rec.Stamp(Self())
	claimed := *e
	claimed.Record = &rec
	err := m.Save(ctx, &claimed)
	if errors.Is(err, git.ErrStale) {
		return ErrMovedOn
	}
	if err != nil {
		return err
	}
	*e = claimed
	return nil
}

// MarkInterrupted moves a task whose creation or setup stopped to state
// failed, saying why, and returns the exit-3 error that says it was kept
// and what to do next.
func (m *Manager) MarkInterrupted(ctx context.Context, e *record.Entry, why string) error {
	end := time.Now().UTC()
	err := m.Transition(ctx, e, record.Failed, func(r *record.Record) {
		r.Init.Status, r.Init.Error, r.Init.FinishedAt = record.InitFailed, why, &end
		r.Init.PGID, r.Init.PGIDStart, r.Init.PGIDNS = 0, "", ""
	})
	if err != nil {
		return err
	}
	m.LogEvent(e.Record, "marked-failed", why)
	rec := e.Record
	return exitcode.Refusedf("marked task %q failed: %s: look at %s, then run git wt init %s, or git wt rm %s", rec.Task, why, rec.Path, rec.Slug, rec.Slug)
}
