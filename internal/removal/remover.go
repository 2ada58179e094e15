// Package removal removes tasks all or nothing (SPEC §7): rm, the
// retention policy that decides which tasks to remove, and the finishing
// of a removal that a killed process left half done.
package removal

import (
	"context"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Remover removes the tasks of one repository.
type Remover struct {
	*task.Manager
	inspector
	sweeper
	// Pool is the warm pool, once wired: its entries count toward a full
	// disk and wt.maxTotalSize, and go, oldest first, before any task
	// does (SPEC §14).
	Pool poolRoom
	// Gone, when set, is told of every task a removal took away (rm,
	// merge cleanup, the post-merge hook, retention): claims across
	// machines release the task's claim (SPEC §18).
	Gone func(ctx context.Context, r *Removal)
}

// poolRoom is the disk the warm pool's entries take, and its drain.
type poolRoom interface {
	// MakeRoom drains entries until dir's file system has need bytes free.
	MakeRoom(ctx context.Context, dir string, need int64) bool
	// Size is the disk the entries take.
	Size(ctx context.Context) int64
	// Shrink drains entries, oldest first, until by bytes are freed (in
	// a dry run: would be), and says what it did to each.
	Shrink(ctx context.Context, by int64, dryRun bool) []record.PoolDrained
}

// inspector is what removal needs to know before it removes: whether the
// worktree is dirty, whether its commits are merged, the listing the
// retention policy ranks, and the build output a reclaim deletes.
type inspector interface {
	DirtyCount(ctx context.Context, path string) (int, error)
	DirtyCountRefreshing(ctx context.Context, path string) (int, error)
	HiddenChanges(ctx context.Context, path string) (int, error)
	Merged(ctx context.Context, rec *record.Record) (bool, error)
	UnmergedCommits(ctx context.Context, rec *record.Record) (int, error)
	SubmoduleOnlyCommits(ctx context.Context, dir string) (int, error)
	Inspect(ctx context.Context, o inspect.LiveOptions) ([]inspect.Live, []git.Worktree, error)
	BuildOutput(ctx context.Context, dir string) ([]string, error)
}

// sweeper takes back what a merge killed mid-checkout left in the
// worktree of its base, before the task that tells its files goes, and
// finishes the checkout of an unfinished creation whose folder a
// removal put back.
type sweeper interface {
	TakeBackMerge(ctx context.Context, rec *record.Record, wts []git.Worktree, check func(dir string) error) error
	FinishKeptCheckout(ctx context.Context, rec *record.Record)
}

// New returns the remover of m's tasks; i looks, w sweeps.
func New(m *task.Manager, i inspector, w sweeper) *Remover {
	return &Remover{Manager: m, inspector: i, sweeper: w}
}
