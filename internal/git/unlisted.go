package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// UnlistedEntries are the admin entries in the worktrees folder of the
// common dir commonDir that git lists no worktree for and that no git is
// making (Unlisted): debris that `git worktree prune` would drop.
func UnlistedEntries(commonDir string, settled time.Duration) []string {
	root := filepath.Join(commonDir, "worktrees")
	if AdminEntriesLinked(commonDir) {
		return nil // not git's folder: nothing in it is ours to delete
	}
	dirs, _ := os.ReadDir(root)
	var out []string
	for _, d := range dirs {
		if admin := filepath.Join(root, d.Name()); Unlisted(admin, settled) {
			out = append(out, admin)
		}
	}
	return out
}

// Unlisted says whether the admin entry admin is one git lists no
// worktree for, left so: a real folder whose gitdir file is missing or
// empty (git skips such an entry, and prune drops it), not locked, and
// unchanged, as its gitdir, for settled. A git worktree remove killed as
// it deleted the entry leaves one, and so does a git that wrote into the
// entry (its index.lock) after the removal had read it. A git worktree
// add writes its lock right after it makes the entry, and a move rewrites
// gitdir in one write: the wait covers those moments of a plain git's;
// git-wt's own run under its repository lock.
func Unlisted(admin string, settled time.Duration) bool {
	st, err := os.Lstat(admin)
	if err != nil || !st.IsDir() || time.Since(st.ModTime()) < settled {
		return false
	}
	if _, err := os.Lstat(filepath.Join(admin, "locked")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	gitdir, err := os.Lstat(filepath.Join(admin, "gitdir"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false
	}
	return emptyFile(gitdir) && time.Since(gitdir.ModTime()) >= settled
}

// Serviceable says whether the admin entry admin still holds what git
// needs of an entry to work in its worktree (HEAD and commondir): a
// worktree whose .git file names it may still use it, gitdir or not (a
// plain git worktree whose gitdir file went, a move stopped as it wrote
// it), and its index may hold staged work. An entry a removal emptied
// has neither.
func Serviceable(admin string) bool {
	for _, name := range []string{"HEAD", "commondir"} {
		if _, err := os.Lstat(filepath.Join(admin, name)); err != nil {
			return false
		}
	}
	return true
}

// addSettled is how long ago git worktree add must have locked its entry
// "initializing" for an entry without its gitdir file to be a killed
// add's: git writes gitdir right after the lock.
const addSettled = 2 * time.Second

// KilledAddEntryOf is the admin entry that a git worktree add of the
// folder path left when it was killed after it made the entry and locked
// it "initializing", before it wrote the entry's gitdir file (and maybe
// before it made the folder): git lists no worktree for it, and git
// worktree prune keeps it for its lock; and whether it has settled: was
// locked at least addSettled ago (a git worktree add whose git-wt was
// killed may still run, and writes gitdir right after the lock). "" when
// there is none, or when the entry is no real folder of the common dir's
// or could serve a worktree (Serviceable).
func KilledAddEntryOf(commonDir, path string) (admin string, settled bool) {
	real := realPath(path)
	admin = killedAddEntry(filepath.Join(commonDir, "worktrees"), filepath.Base(real), filepath.Join(path, ".git"), filepath.Join(real, ".git"))
	if admin == "" || Serviceable(admin) {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(admin, "gitdir")); err == nil {
		return "", false // git lists it
	}
	realAdmin, why := realAdminEntry(commonDir, admin)
	if why != "" {
		return "", false
	}
	lock, err := os.Lstat(filepath.Join(realAdmin, "locked"))
	return realAdmin, err == nil && time.Since(lock.ModTime()) >= addSettled
}

// DropAdminEntry deletes the admin entry admin of the common dir
// commonDir, through an os.Root of the common dir, so that a worktrees
// folder an agent swapped for a link leads the deletion nowhere outside.
func DropAdminEntry(commonDir, admin string) error {
	root, err := os.OpenRoot(commonDir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.RemoveAll(filepath.Join("worktrees", filepath.Base(admin)))
}
