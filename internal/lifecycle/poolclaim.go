package lifecycle

import (
	"context"
	"errors"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// poolClaim is a new task's way to a warm pool entry (SPEC §11): the
// entries on offer, and the one its record's transaction took.
type poolClaim struct {
	offer *pool.Offer
	taken *record.PoolItem
}

// poolClaimFor is the pool's offer to a new task, or nil when the task
// may not take an entry: no pool, a sparse checkout (whether asked for,
// configured or inherited), --no-copy (entries hold the copies), or a
// --branch that exists (it has files of its own; nextFor says the same
// of any branch found meanwhile), whose offer would only cost a status.
func (m *Handler) poolClaimFor(ctx context.Context, o CreateOptions, b task.Base, seen *sighting) *poolClaim {
	if !m.pool.Enabled() || len(o.Sparse) > 0 || o.NoCopy || o.Branch != "" && !seen.branches[o.Branch].Missing {
		return nil
	}
	return &poolClaim{offer: m.pool.Offer(ctx, b.SHA)}
}

// release lets go of the entry the claim held, once it left the pool
// folder or was not taken.
func (pc *poolClaim) release() {
	if pc != nil {
		pc.offer.Release()
	}
}

// nextFor is the next entry fit to claim for a task that creates the
// refs in also, or nil: only a task whose branch is made with it takes an
// entry (an existing branch has files of its own).
func (pc *poolClaim) nextFor(ctx context.Context, also []git.Ref) *record.PoolItem {
	if pc == nil || len(also) == 0 {
		return nil
	}
	return pc.offer.Next(ctx)
}

// storeRecord writes the new task's record (creating the refs in also
// with it) and, with a pool claim, takes an entry in the same transaction:
// its ref is deleted at the value offered, so that no other new takes it.
// An entry another new took first gives way to the next; with none left,
// the record is written alone.
func (m *Handler) storeRecord(ctx context.Context, rec *record.Record, also []git.Ref, pc *poolClaim) (string, error) {
	for it := pc.nextFor(ctx, also); it != nil; it = pc.nextFor(ctx, also) {
		rec.PoolCommit = it.Entry.Commit
		var oid string
		err := m.PastStaleRefLocks(func() (err error) {
			oid, err = m.Store.CreateClaiming(ctx, rec, it, also...)
			return err
		})
		if err == nil {
			pc.taken = it
			return oid, nil
		}
		if !errors.Is(err, git.ErrStale) || !pc.offer.Gone(ctx, it) {
			return "", err
		}
	}
	rec.PoolCommit = ""
	var oid string
	err := m.PastStaleRefLocks(func() (err error) {
		oid, err = m.Store.Create(ctx, rec, also...)
		return err
	})
	return oid, err
}

// settleClaimed makes the entry the claim took the task's worktree, on
// its branch with the files of the base. claimed is false when there was
// no entry, or when it could not be used (not moved, or moved back to the
// pool folder, for doctor): the caller then checks out afresh.
func (m *Handler) settleClaimed(ctx context.Context, rec *record.Record, b task.Base, pc *poolClaim, u *Undo) (claimed bool, err error) {
	if pc == nil || pc.taken == nil {
		return false, nil
	}
	err = m.pool.MoveIn(ctx, pc.taken, rec.Path)
	if err == nil {
		// Undo runs last-in first-out: the worktree goes before the
		// branch and the record. Pushed only once the worktree is there:
		// whatever else stands at the path is nobody's to delete.
		u.push(func(ctx context.Context) error { return m.DropWorktree(ctx, rec.Path) })
		err = m.pool.BringFiles(ctx, pc.taken, rec.Path, b.SHA, task.BranchRef(rec.Branch))
	}
	if errors.Is(err, pool.ErrUnfit) {
		return false, nil
	}
	return err == nil, err
}
