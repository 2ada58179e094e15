package lifecycle

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
)

// sparseDirs are the directories a new task checks out (SPEC §11): those
// --sparse named, else wt.sparse's, else, with wt.sparseInherit, those
// of the worktree new was started in, never of the worktree git happens
// to run in. None means a full checkout.
func (m *Handler) sparseDirs(ctx context.Context, asked []string) ([]string, error) {
	for i, d := range asked {
		clean, err := settings.CleanSparseDir(d)
		if err != nil {
			return nil, exitcode.Usagef("--sparse: %v", err)
		}
		asked[i] = clean
	}
	switch {
	case len(asked) > 0:
		return asked, nil
	case len(m.Settings.Sparse) > 0:
		return m.Settings.Sparse, nil
	case !m.Settings.SparseInherit:
		return nil, nil
	}
	// git keeps a worktree's patterns in its own git dir: no file there,
	// no sparse checkout, and no git process to ask.
	if _, err := os.Stat(filepath.Join(m.Repo.GitDir, "info", "sparse-checkout")); err != nil {
		return nil, nil
	}
	dirs, _ := m.Git.Index().SparseDirs(ctx, m.Repo.Toplevel)
	return dirs, nil
}

// shapeCheckout makes the new worktree's checkout sparse or full before a
// file is written: git worktree add (run in the main worktree) copied the
// main worktree's sparse settings, which a task with its own directories
// replaces, and a full task drops.
func (m *Handler) shapeCheckout(ctx context.Context, rec *record.Record) error {
	if len(rec.Sparse) == 0 {
		if !m.copiedSparse(rec.Path) {
			return nil
		}
		return m.Git.Index().SparseDisable(ctx, rec.Path)
	}
	if err := m.worktreeConfigOn(ctx); err != nil {
		return err
	}
	// Written as git would, without a git process, into a worktree that
	// has no settings of its own yet; else git merges them.
	if admin, err := git.ProveLinked(m.Repo.CommonDir, rec.Path, rec.Path); err == nil {
		if ok, err := git.WriteSparseCone(admin, rec.Sparse); ok || err != nil {
			return err
		}
	}
	return m.Git.Index().SparseSet(ctx, rec.Path, rec.Sparse)
}

// copiedSparse reports whether the worktree at path got sparse patterns
// from the worktree git worktree add ran in.
func (m *Handler) copiedSparse(path string) bool {
	_, admin, err := git.AdminDir(path)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(admin, "info", "sparse-checkout"))
	return err == nil
}

// worktreeConfigOn turns on per-worktree config once, under the
// repository lock, and says so: a task's sparse patterns must not reach
// the main worktree or another task.
func (m *Handler) worktreeConfigOn(ctx context.Context) error {
	if v, ok := m.Settings.Get("extensions.worktreeConfig"); ok {
		if on, err := settings.ParseBool(v.Value); err == nil && on {
			return nil
		}
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if m.Git.Config().Get(ctx, m.Repo.MainDir, "extensions.worktreeConfig") == "true" {
		return nil // another new did it meanwhile
	}
	if err := m.Git.Config().WorktreeConfigOn(ctx, m.Repo.MainDir); err != nil {
		return exitcode.Failedf("cannot turn on extensions.worktreeConfig, which keeps sparse patterns per worktree: %v", err)
	}
	m.Warn("turned on extensions.worktreeConfig in %s: each worktree now keeps its own sparse patterns (git sparse-checkout), so this task's never reach the main worktree or another task", m.Repo.CommonDir)
	return nil
}
