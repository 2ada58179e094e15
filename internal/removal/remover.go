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
	// MakeRoom, when set, frees disk in dir's file system by draining the
	// warm pool, oldest entry first, until need bytes are free; it says
	// whether it removed any. A full disk costs pool entries before any
	// task goes (SPEC §14).
	MakeRoom func(ctx context.Context, dir string, need int64) bool
}

// inspector is what removal needs to know before it removes: whether the
// worktree is dirty, whether its commits are merged, and the listing the
// retention policy ranks.
type inspector interface {
	DirtyCount(ctx context.Context, path string) (int, error)
	Merged(ctx context.Context, rec *record.Record) (bool, error)
	UnmergedCommits(ctx context.Context, rec *record.Record) (int, error)
	Inspect(ctx context.Context, o inspect.LiveOptions) ([]inspect.Live, []git.Worktree, error)
}

// New returns the remover of m's tasks.
func New(m *task.Manager, i inspector) *Remover { return &Remover{Manager: m, inspector: i} }
