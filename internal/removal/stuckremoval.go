package removal

import (
	"context"
	"fmt"
	"os"

	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// DiagnoseRemoval reports a task left in state removing by a process
// that is gone (a kill, or a removal that failed half way): doctor --fix,
// gc and the next rm finish it as rm does, with its checks (takeOver puts
// back a folder whose removal had not passed its second check).
func (m *Remover) DiagnoseRemoval(e *record.Entry, p *task.Problem, alive proc.Liveness) *task.Problem {
	if alive == proc.Alive {
		return nil // being removed right now
	}
	rec := e.Record
	p.Kind, p.Age = task.StuckRemoval, -1
	if alive == proc.Unknown {
		p.Age = task.Silence(rec.Owner(), rec.CreatedAt) // cannot be seen from here: wait out the grace
	}
	what := "stopped half way"
	if alive != proc.Dead {
		what = m.Stopped(rec, alive)
	}
	p.Detail = fmt.Sprintf("a removal by process %d on %s %s", rec.CreatorPID, rec.CreatorHost, what)
	p.Fix = "finish the removal as git wt rm " + rec.Slug + " does (a worktree that changed is put back and kept)"
	p.FixDirty = true
	p.FixWith = func(ctx context.Context, force bool) error { return m.RemoveForRepair(ctx, e, force) }
	return p
}

// RemovalTrash adds to trash where a stuck removal may have moved its
// task's folder, which leftover-trash must then leave to it.
func (m *Remover) RemovalTrash(rec *record.Record, trash map[string]bool) {
	if rec.State != record.Removing {
		return
	}
	for _, path := range m.trashCandidates(rec, rec.CreatorPID) {
		for _, p := range []string{path, checkedMark(path)} {
			if _, err := os.Lstat(p); err == nil {
				trash[p] = true
			}
		}
	}
}
