package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
)

// locateFromGoneDir finds the repository when the current directory has
// been deleted (a shell left in a worktree that was removed), for `git wt
// path --main` (SPEC §7 "In use"): from the nearest folder above the
// deleted one that still exists, which is the base dir when a task was
// removed, git-wt takes a task worktree beside the deleted one, else the
// repository beside a base dir named <repo>-worktrees (the default), else
// the repository that folder lies in when the deleted one lay in its main
// worktree (a base dir inside it). The deleted directory's path comes from
// the kernel (proc.WorkingDir) or the shell ($PWD).
func (e *env) locateFromGoneDir(ctx context.Context) (*git.Repo, bool) {
	var gone []string
	if dir, err := proc.WorkingDir(); err == nil {
		gone = append(gone, dir)
	}
	if pwd := os.Getenv("PWD"); filepath.IsAbs(pwd) {
		gone = append(gone, filepath.Clean(pwd))
	}
	for _, g := range gone {
		dir := g
		for {
			dir = filepath.Dir(dir)
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
		if repo := e.repoNear(ctx, dir, g); repo != nil {
			return repo, true
		}
	}
	return nil, false
}

// repoNear is the repository whose worktree was gone, found from dir, the
// nearest existing folder above it (see locateFromGoneDir).
func (e *env) repoNear(ctx context.Context, dir, gone string) *git.Repo {
	entries, _ := os.ReadDir(dir)
	for _, ent := range entries {
		sib := filepath.Join(dir, ent.Name())
		if st, err := os.Lstat(filepath.Join(sib, ".git")); err != nil || !st.Mode().IsRegular() {
			continue // not a linked worktree
		}
		if repo, err := e.git.Locate(ctx, sib); err == nil {
			return repo
		}
	}
	if name, ok := strings.CutSuffix(filepath.Base(dir), "-worktrees"); ok && name != "" {
		if repo, err := e.git.Locate(ctx, filepath.Join(filepath.Dir(dir), name)); err == nil {
			return repo
		}
	}
	if repo, err := e.git.Locate(ctx, dir); err == nil && fsutil.Within(repo.MainDir, gone) {
		return repo
	}
	return nil
}
