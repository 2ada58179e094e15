// Package policy keeps a repository's tasks in order: doctor finds where
// records, worktrees, branches and git's own files disagree and repairs
// what is safe to; gc removes orphans and applies the retention policy.
package policy

import (
	"context"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
)

// Doctor diagnoses and repairs the tasks of one repository.
type Doctor struct {
	*task.Manager
	remover
	repairer
	unmerged
	finder
	pool pooler
}

// pooler is what doctor and gc need of the warm pool: its problems and
// its worktrees, and the drain of stale entries and the refill.
type pooler interface {
	Diagnose(ctx context.Context, wts []git.Worktree) []*task.Problem
	Owns(ctx context.Context) func(path string) bool
	Stale(ctx context.Context) func(*record.PoolEntry) bool
	Drain(ctx context.Context, o pool.DrainOptions) ([]pool.Drained, error)
	Enabled() bool
	StartFill()
}

// finder finds the leftovers of killed gits in git's own files.
type finder interface {
	GitLeftovers(entries []record.Entry, wts []git.Worktree) []*task.Problem
	StaleRefLocks() []*task.Problem
	StaleGCLocks() []*task.Problem
	BrokenAdminEntries() []*task.Problem
	UnlistedAdminEntries(folders func() []string) []*task.Problem
	DiagnoseLock(e *record.Entry, wt *git.Worktree, p *task.Problem) *task.Problem
}

// unmerged counts a branch's commits found nowhere else: a leftover
// branch with any is kept.
type unmerged interface {
	UnmergedCommits(ctx context.Context, rec *record.Record) (int, error)
}

// remover is what doctor and gc need of removal.
type remover interface {
	RetentionPolicy(maxAge *time.Duration, maxCount *int) removal.Retention
	Retain(ctx context.Context, p removal.Retention, dryRun bool) (*removal.Retainment, error)
	Reclaim(ctx context.Context, dryRun bool) ([]removal.Reclaimed, error)
	DiagnoseRemoval(e *record.Entry, p *task.Problem, alive proc.Liveness) *task.Problem
	RemovalTrash(rec *record.Record, trash map[string]bool)
}

// repairer is what doctor needs of the lifecycle: the repairs of tasks a
// killed process left in the middle of a change, and adoption.
type repairer interface {
	RepairStuckCreation(ctx context.Context, e *record.Entry) error
	RepairMerge(ctx context.Context, e *record.Entry, wts []git.Worktree) error
	RepairSync(ctx context.Context, e *record.Entry) error
	RemoveOrphan(ctx context.Context, e *record.Entry, force bool) error
	PruneEntry(ctx context.Context, path string) error
	Adopt(ctx context.Context, wt git.Worktree, baseSHA, reason string) (*record.Entry, error)
}

// New returns the doctor of m's tasks.
func New(m *task.Manager, r remover, l repairer, u unmerged, f finder, p pooler) *Doctor {
	return &Doctor{Manager: m, remover: r, repairer: l, unmerged: u, finder: f, pool: p}
}
