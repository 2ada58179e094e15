package lifecycle

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/saved"
)

// Restored is what git wt restore made: the task, and the saved state it
// came from (which stays until gc expires it: wt.trashKeep).
type Restored struct {
	*Created
	From *saved.Entry
}

// Restore makes the task of a saved state again (SPEC §20): arg names the
// state (saved.Find); path is --path ("" for the task's usual folder; the
// path the state records is shown, never used). It is new, with the
// branch made at the state's first parent, and the saved files written
// after the checkout and before the setup, which runs as new's does. A
// task or a branch of that name that exists now refuses it (exit 3).
// claim takes the task's claim across machines first, as new's does
// (SPEC §18), and gives back a function that releases it, which runs if
// the task is not made.
func (m *Handler) Restore(ctx context.Context, arg, path string, claim func(task, branch string) (giveBack func(), err error)) (*Restored, error) {
	store := saved.Of(m.Git, m.Repo)
	entries, err := store.List(ctx)
	if err != nil {
		return nil, err
	}
	e, err := saved.Find(entries, arg)
	if err != nil {
		return nil, err
	}
	if e.Err != nil {
		return nil, exitcode.RefusedAs(exitcode.KindUnsafeInput, "the saved state %s cannot be restored: %v", e.ID, e.Err)
	}
	info := e.Info
	base := info.Base
	if base != "" {
		if _, err := m.ResolveBase(ctx, base); err != nil {
			m.Warn("the base %s of the saved task is gone (%v): the task's base is the default one", base, err)
			base = ""
		}
	}
	giveBack, err := claim(info.Task, info.Branch)
	if err != nil {
		return nil, err
	}
	c, err := m.Create(ctx, CreateOptions{TaskID: info.Task, Branch: info.Branch, Base: base, Path: path, StartAt: e.Tip,
		Fill: func(ctx context.Context, dir string) error { return store.WriteInto(ctx, dir, e) }})
	if err != nil {
		giveBack()
		return nil, err
	}
	m.LogEvent(c.Record, "restored", "from "+e.ID)
	return &Restored{Created: c, From: e}, nil
}
