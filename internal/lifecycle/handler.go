// Package lifecycle makes tasks and brings them back: create (and resume
// a creation a killed process left), adopt a worktree git-wt did not make,
// undo a creation that failed, and repair a task a killed process left in
// the middle of a change.
package lifecycle

import (
	"context"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/task"
)

// Handler makes and repairs the tasks of one repository.
type Handler struct {
	*task.Manager
	remover
	setupper
	inspector
	sweeper
	pool pooler
}

// pooler hands out the warm pool's entries (SPEC §11).
type pooler interface {
	Enabled() bool
	Offer(ctx context.Context, commit string) *pool.Offer
	MoveIn(ctx context.Context, it *record.PoolItem, path string) error
	BringFiles(ctx context.Context, it *record.PoolItem, path, commit, ref string) error
	StartFill()
}

// sweeper deletes the lock files a killed git left in a worktree a
// creation resumes, takes back what a killed merge left in the worktree
// of its base, and finishes the checkout of a creation that is kept.
type sweeper interface {
	ClearStaleLocks(rec *record.Record)
	ClearInitializingLock(ctx context.Context, rec *record.Record)
	TakeBackMerge(ctx context.Context, rec *record.Record, wts []git.Worktree, check func(dir string) error) error
	FinishKeptCheckout(ctx context.Context, rec *record.Record)
}

// inspector tells a repair whether a worktree is dirty and its commits
// merged.
type inspector interface {
	DirtyCount(ctx context.Context, path string) (int, error)
	Merged(ctx context.Context, rec *record.Record) (bool, error)
}

// setupper readies a new worktree: copies and init.
type setupper interface {
	Setup(ctx context.Context, e *record.Entry, o setup.Options) error
	PlanSetup(o setup.Options) setup.Plan
	Apply(ctx context.Context, e *record.Entry, p setup.Plan) error
	InitFailed(rec *record.Record) error
	FailInterruptedInit(ctx context.Context, e *record.Entry) error
	EndLeftoverInit(rec *record.Record)
	ReadyEnvironment(ctx context.Context, e *record.Entry) error
}

// remover is what the lifecycle needs of removal: rolling back a creation
// and making room for one.
type remover interface {
	RemoveEntry(ctx context.Context, e *record.Entry, o removal.RemoveOptions) *removal.Removal
	RemoveForRepair(ctx context.Context, e *record.Entry, force bool) error
	CheckoutSize(ctx context.Context, commit string, sparse []string) (int64, error)
	EnsureSpace(ctx context.Context, dir string, need int64) error
}

// New returns the lifecycle of m's tasks; r removes what must go, s
// readies what is made, i looks, w sweeps, p hands out pool entries.
func New(m *task.Manager, r remover, s setupper, i inspector, w sweeper, p pooler) *Handler {
	return &Handler{Manager: m, remover: r, setupper: s, inspector: i, sweeper: w, pool: p}
}
