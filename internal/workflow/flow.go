// Package workflow is what an agent does with its task once it exists:
// commit, push, open a pull request, merge it back, run a command in it.
package workflow

import (
	"context"

	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
)

// Flow runs the workflow commands on the tasks of one repository.
type Flow struct {
	*task.Manager
	remover
	worktrees
	inspector
	sweeper
}

// sweeper deletes the lock files a killed git left, before a commit.
type sweeper interface {
	ClearStaleLocks(rec *record.Record)
}

// inspector tells a merge whether worktrees are clean, how far the branch
// is ahead, and a cleanup which tasks are merged.
type inspector interface {
	DirtyCount(ctx context.Context, path string) (int, error)
	DirtyCountRefreshing(ctx context.Context, path string) (int, error)
	AheadBehind(ctx context.Context, branch, base string) (ahead, behind int, err error)
	MergedSet(ctx context.Context, recs []*record.Record, since string) (map[string]bool, error)
	UnmergedCommits(ctx context.Context, rec *record.Record) (int, error)
}

// remover removes a task after its merge.
type remover interface {
	RemoveEntry(ctx context.Context, e *record.Entry, o removal.RemoveOptions) *removal.Removal
}

// worktrees makes and drops the temporary worktree a merge into a branch
// that no worktree has checked out runs in.
type worktrees interface {
	AddWorktree(ctx context.Context, rec *record.Record, startSHA string, u *lifecycle.Undo, branchMade bool) error
	CheckOut(ctx context.Context, dir, branch string) error
}

// New returns the workflow commands for m's tasks.
func New(m *task.Manager, r remover, w worktrees, i inspector, s sweeper) *Flow {
	return &Flow{Manager: m, remover: r, worktrees: w, inspector: i, sweeper: s}
}
