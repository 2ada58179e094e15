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

// JudgeOwner tells whether the process that signed e's record is alive.
// An owner that is not alive has stopped in the middle of its change only
// if the record, read again after that judgement, is still the one
// examined: a process writes its change's last step before it exits, so a
// record read while its owner still worked, and changed since, is stale,
// not stopped (ErrMovedOn; the record is gone, or e is not the record any
// more). Every judgement that a task's process stopped goes through here.
func (m *Manager) JudgeOwner(ctx context.Context, e *record.Entry) (proc.Liveness, error) {
	alive := proc.Check(Owner(e.Record))
	if alive == proc.Alive {
		return alive, nil
	}
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return alive, err
	}
	if len(fresh) == 0 || fresh[0].OID != e.OID {
		return alive, ErrMovedOn
	}
	return alive, nil
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
