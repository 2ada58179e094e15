package leftover

import (
	"context"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// FinishKeptCheckout makes an unfinished creation that is kept (its
// worktree holds someone's files) what its record says, a worktree on its
// branch: HEAD points at the branch, which touches no file, and, when the
// checkout had not begun, the branch's files are written around what is
// there (a one-tree read-tree, which refuses rather than overwrite a file
// in its way). A checkout killed half-way is left for a person. The
// creation's repair runs it, and so does the repair of a removal of such
// a creation that put its folder back.
func (m *Sweeper) FinishKeptCheckout(ctx context.Context, rec *record.Record) {
	ref := task.BranchRef(rec.Branch)
	if err := m.Git.PointHead(ctx, rec.Path, ref); err != nil {
		m.Warn("could not point the kept worktree %s at %s: %v", rec.Path, rec.Branch, err)
		return
	}
	if err := m.Git.CheckOutAround(ctx, rec.Path, ref); err != nil {
		m.Warn("kept %s with its checkout unfinished: %v", rec.Path, err)
	}
}
