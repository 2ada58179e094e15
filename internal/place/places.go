package place

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
)

// Where worktrees may go (SPEC §7, §14 "--path"): a worktree never lies
// inside or around another one, and never in the folders git-wt keeps in
// the base dir for itself, whose contents it deletes or hands out.

// MergeTmpDir, in the base dir, holds the temporary worktrees of merges:
// merge-<pid>, each with the stamp of its process beside it (StampOf).
const MergeTmpDir = ".git-wt-tmp"

// StampOf is the file beside a folder named after a process that holds
// that process's stamp (proc.WriteStamp).
func StampOf(dir string) string { return dir + ".owner" }

// PoolDir is the folder of the warm pool's entries, in the base dir:
// <base dir>/.pool/<id>.
const PoolDir = ".pool"

// ownFolders are the folders git-wt keeps in the base dir for itself:
// the trash (emptied by gc), the pool, and merge's temporary worktrees.
var ownFolders = []string{TrashDir, PoolDir, MergeTmpDir}

// CheckChosenPath refuses a --path p (absolute, resolved, inside baseDir)
// that has one of git-wt's own folders as a component, or that lies
// inside or contains another worktree (a task, a pool entry, the main
// worktree): removing one would delete the other's files. It lists the
// worktrees, so it runs only when --path was given.
func (r *Rules) CheckChosenPath(ctx context.Context, baseDir, p string) error {
	rel, err := filepath.Rel(baseDir, p)
	if err != nil {
		return exitcode.Usagef("worktree path %s lies outside the base dir %s", p, baseDir)
	}
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		if slices.Contains(ownFolders, c) {
			return exitcode.Usagef("worktree path %s lies in %s, a folder git-wt keeps for itself (and empties): choose another --path", p, filepath.Join(baseDir, c))
		}
	}
	wts, err := r.Git.Worktrees(ctx, r.Repo.MainDir)
	if err != nil {
		return err
	}
	for _, wt := range wts {
		switch {
		case fsutil.Within(wt.Path, p) && !fsutil.Within(wt.Path, baseDir): // a base dir in the main worktree is allowed
			return exitcode.Usagef("worktree path %s lies inside the worktree %s: choose a --path outside every worktree", p, wt.Path)
		case fsutil.Within(p, wt.Path):
			return exitcode.Usagef("worktree path %s contains the worktree %s: choose a --path that holds no worktree", p, wt.Path)
		}
	}
	return nil
}

// TrashDir is where rm moves a worktree folder before deleting it.
const TrashDir = ".git-wt-trash"

// CheckedSuffix names the empty file beside a folder in the trash that
// says its removal looked at it there and went on (removal's checked mark).
const CheckedSuffix = ".checked"

// InPool says whether path is a warm pool entry's folder (or inside one)
// under baseDir: git-wt's own, never foreign, never adopted (SPEC §14).
func InPool(baseDir, path string) bool {
	return fsutil.Within(filepath.Join(baseDir, PoolDir), path)
}

// IsOwnFolder says whether path lies in one of the folders git-wt keeps
// in baseDir for itself (the trash, the pool, merge's temporary
// worktrees): what is there is never adopted.
func IsOwnFolder(baseDir, path string) bool {
	for _, f := range ownFolders {
		if fsutil.Within(filepath.Join(baseDir, f), path) {
			return true
		}
	}
	return false
}
