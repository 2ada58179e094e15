package task

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// Refuse logs a refusal and returns the exit-3 error for it, of the kind
// its reason is (--json's error document names it, with the task).
func (m *Manager) Refuse(rec *record.Record, reason, format string, args ...any) error {
	err := &exitcode.Error{Code: exitcode.Refused, Kind: refusalKinds[reason], Task: rec.Task, Path: rec.Path, Err: fmt.Errorf(format, args...)}
	if err.Kind == "" {
		err.Kind = exitcode.KindBusy
	}
	m.LogEvent(rec, "refused", reason+": "+err.Error())
	return err
}

// refusalKinds are the error kinds of the refusals' reasons (the event
// log's words).
var refusalKinds = map[string]exitcode.Kind{
	"dirty": exitcode.KindDirty, "status-failed": exitcode.KindDirty, "save-failed": exitcode.KindDirty, "save-commits-failed": exitcode.KindUnmerged, "locked": exitcode.KindLocked,
	"in-use": exitcode.KindInUse, "contains-worktree": exitcode.KindInUse, "contains-mount": exitcode.KindInUse, "main-worktree": exitcode.KindMainWorktree,
	"not-a-directory": exitcode.KindConflict, "other-branch": exitcode.KindConflict, "in-progress": exitcode.KindConflict, "not-ready": exitcode.KindBusy,
	"unmerged-submodule": exitcode.KindUnmerged, "pre-remove": exitcode.KindInUse, "not-ours": exitcode.KindUnsafeInput,
}

// Registered reports whether git still has an admin entry for path.
func (m *Manager) Registered(ctx context.Context, path string) bool {
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	return err != nil || FindWorktree(wts, path) != nil
}

func FindWorktree(wts []git.Worktree, path string) *git.Worktree {
	for i := range wts {
		if fsutil.SamePath(wts[i].Path, path) {
			return &wts[i]
		}
	}
	return nil
}

// InBaseDir says whether path lies inside the base dir, where git-wt
// makes every task (not the base dir itself), its folders' symlinks
// resolved: a link on the way would have git-wt write, move or delete
// what it points at. A record's path proves nothing (SPEC §19): what
// git-wt does to a folder git does not list for this repository, it
// does only here.
func (m *Manager) InBaseDir(path string) bool {
	if m.Settings == nil || m.Settings.BaseDir == "" || !filepath.IsAbs(path) {
		return false
	}
	// Folders that do not exist yet (a base dir deleted by hand, with
	// the task's folder in it) are taken as they are written.
	base, err := fsutil.ResolveExisting(m.Settings.BaseDir)
	if err != nil {
		return false
	}
	parent, err := fsutil.ResolveExisting(filepath.Dir(path))
	if err != nil {
		return false
	}
	real := filepath.Join(parent, filepath.Base(path))
	return real != base && fsutil.Within(base, real)
}

// RefuseNested refuses (exit 3, even with --force) to remove the task's
// worktree while another registered worktree lies inside it: deleting the
// folder would delete that worktree's files too. An entry whose folder is
// gone holds nothing to lose; one git calls prunable whose folder is there
// (its .git file deleted) still holds its files.
func (m *Manager) RefuseNested(rec *record.Record, wts []git.Worktree) error {
	for _, wt := range wts {
		if !fsutil.SamePath(wt.Path, rec.Path) && fsutil.Within(rec.Path, wt.Path) && (!wt.Prunable || folderThere(wt.Path)) {
			return m.Refuse(rec, "contains-worktree", "%s contains the worktree %s: remove that one first (git-wt never deletes a worktree with another inside it)", rec.Path, wt.Path)
		}
	}
	return nil
}

// folderThere says whether anything is at path.
func folderThere(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// DropWorktree removes the worktree at path and git's admin entry for it,
// whether or not the folder still exists. Only for a worktree this process
// just made (or one whose folder is gone): it does not check for changes.
func (m *Manager) DropWorktree(ctx context.Context, path string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	// Fails when git never registered the path, or cannot read the
	// folder as a worktree (no .git file); the folder check below still
	// removes what git left.
	gitErr := m.Git.RemoveWorktree(ctx, m.Repo.MainDir, path)
	l.Release()
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	if err := fsutil.RemoveAll(path); err != nil {
		return err
	}
	if gitErr == nil {
		return nil
	}
	// With the folder gone, git drops an admin entry it could not
	// remove with it (and fails, harmlessly, where there is none).
	if l, err = m.Lock(ctx); err != nil {
		return err
	}
	defer l.Release()
	m.Git.RemoveWorktree(ctx, m.Repo.MainDir, path)
	return nil
}
