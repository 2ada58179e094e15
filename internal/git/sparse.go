package git

import (
	"context"
	"strings"
)

// The sparse checkouts of SPEC §11: a task's worktree writes only some
// directories (cone mode) and the files at the root.

// WorktreeConfigOn turns on per-worktree config (extensions.worktreeConfig,
// which needs repository format 1) in the repository at dir, so that one
// worktree's sparse patterns never reach another: git's own
// `sparse-checkout set` would do it too, but writing .git/config, which
// fails while another process holds config.lock.
func (r Config) WorktreeConfigOn(ctx context.Context, dir string) error {
	if err := r.Set(ctx, dir, "core.repositoryformatversion", "1"); err != nil {
		return err
	}
	return r.Set(ctx, dir, "extensions.worktreeConfig", "true")
}

// SparseSet makes the worktree at dir a cone-mode sparse checkout of dirs
// (and the files at the root). In a worktree not checked out yet it
// writes no file: the checkout that follows writes only those.
func (r Index) SparseSet(ctx context.Context, dir string, dirs []string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Stdin: strings.NewReader(strings.Join(dirs, "\n") + "\n"),
		Args: []string{"sparse-checkout", "set", "--cone", "--stdin"}})
	return err
}

// SparseDisable makes the worktree at dir a full checkout again: `git
// worktree add` copies the sparse settings of the worktree it runs in.
func (r Index) SparseDisable(ctx context.Context, dir string) error {
	_, err := r.git.RunIn(ctx, dir, "sparse-checkout", "disable")
	return err
}

// SparseDirs lists the directories of the cone-mode sparse checkout of
// the worktree at dir; ok is false when it is no sparse checkout (or not
// a cone-mode one).
func (r Index) SparseDirs(ctx context.Context, dir string) (dirs []string, ok bool) {
	if r.git.Config().Get(ctx, dir, "core.sparseCheckout") != "true" {
		return nil, false
	}
	lines, err := r.git.Lines(ctx, dir, "sparse-checkout", "list")
	return lines, err == nil
}
