package lifecycle

import (
	"context"
	"fmt"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// RepairSync ends a sync whose process died (SPEC §12). The sync moves
// the branch by compare-and-swap, then the files: if the branch has not
// moved, nothing happened and the task goes back to the state it had; if
// it has, the files follow it (the two-tree read-tree that the sync would
// have run, which refuses to overwrite anything else), and the record
// takes the new base. Files that cannot follow put the branch back.
func (m *Handler) RepairSync(ctx context.Context, e *record.Entry) error {
	if err := m.ClaimForRepair(ctx, e); err != nil {
		return err
	}
	step := e.Record.Sync
	if step == nil {
		return m.EndSync(ctx, e, false)
	}
	rec := e.Record
	b, err := m.InspectBranch(ctx, rec.Branch)
	if err != nil {
		return err
	}
	if !b.Exists || b.SHA != step.To {
		return m.EndSync(ctx, e, false)
	}
	if err := m.filesFollow(ctx, rec.Path, step); err != nil {
		ref := task.BranchRef(rec.Branch)
		if berr := m.Git.MoveBranch(ctx, m.Repo.MainDir, ref, step.From, step.To, "git wt doctor: put back an interrupted sync"); berr != nil {
			return fmt.Errorf("%w: %s is at the synced commit %s, its files are not (%v), and the branch could not be put back (%v)", task.ErrNeedsPerson, rec.Branch, step.To, err, berr)
		}
		return m.EndSync(ctx, e, false)
	}
	return m.EndSync(ctx, e, true)
}

// filesFollow brings the worktree's index and files from step.From to
// step.To, unless they are there already (the sync died after its
// read-tree).
func (m *Handler) filesFollow(ctx context.Context, dir string, step *record.SyncStep) error {
	want, err := m.Git.History().Tree(ctx, m.Repo.MainDir, step.To)
	if err != nil {
		return err
	}
	if have, err := m.Git.Index().IndexTree(ctx, dir); err == nil && have == want {
		return nil
	}
	return m.Git.Index().MoveFiles(ctx, dir, step.From, step.To)
}
