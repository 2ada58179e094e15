package git

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// WriteSparseCone writes the cone-mode sparse settings of the linked
// worktree whose git dir is adminDir, as `git sparse-checkout set --cone`
// would (git-sparse-checkout(1), "Internals: cone pattern set"): the
// patterns file, and core.sparseCheckout and core.sparseCheckoutCone in its
// config.worktree. No git process: a new task's worktree has neither file
// yet. ok is false, and nothing written, when config.worktree exists (git
// worktree add copied the main worktree's): then SparseSet merges.
func WriteSparseCone(adminDir string, dirs []string) (ok bool, err error) {
	cfg := filepath.Join(adminDir, "config.worktree")
	if _, err := os.Lstat(cfg); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Join(adminDir, "info"), 0o777); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(adminDir, "info", "sparse-checkout"), []byte(ConePatterns(dirs)), 0o666); err != nil {
		return false, err
	}
	return true, os.WriteFile(cfg, []byte("[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n"), 0o666)
}

// ConePatterns is the cone-mode pattern file of dirs as git writes it:
// the root's files, the files of every parent of a directory, then the
// directories whole. A directory inside another listed one adds nothing.
func ConePatterns(dirs []string) string {
	kept, parents := coneDirs(dirs)
	var b strings.Builder
	b.WriteString("/*\n!/*/\n")
	for _, p := range parents {
		fmt.Fprintf(&b, "/%s/\n!/%s/*/\n", escapeCone(p), escapeCone(p))
	}
	for _, d := range kept {
		fmt.Fprintf(&b, "/%s/\n", escapeCone(d))
	}
	return b.String()
}

// coneDirs are the directories a cone-mode checkout of dirs writes
// whole (kept: sorted, without those inside another), and the parents of
// those (sorted), whose own files it writes.
func coneDirs(dirs []string) (kept, parents []string) {
	sorted := slices.Clone(dirs)
	slices.Sort(sorted)
	for _, d := range slices.Compact(sorted) {
		if len(kept) > 0 && strings.HasPrefix(d, kept[len(kept)-1]+"/") {
			continue
		}
		kept = append(kept, d)
	}
	seen := map[string]bool{}
	for _, d := range kept {
		parts := strings.Split(d, "/")
		for i := 1; i < len(parts); i++ {
			seen[strings.Join(parts[:i], "/")] = true
		}
	}
	return kept, slices.Sorted(maps.Keys(seen))
}

// escapeCone escapes what a pattern would read specially, as git does for
// cone-mode directories.
func escapeCone(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
