package removal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Removal is all or nothing (SPEC §7): under the lock the task goes to
// state "removing" (compare-and-swap against the state rm examined) and
// its folder is renamed into the trash; the moved folder is then checked
// for changes and users again, so a file written after rm's first look is
// seen, and the folder goes back where it was, the state too. Only then
// are git's admin entry, the folder, the branch and the record deleted.
// A removal that fails half way leaves the task in state "removing",
// which the next rm or doctor --fix completes (takeOver).

// trashPaths are where a removal by process pid moves the task's folder:
// <base dir>/<trash>/<slug>.<pid>, or beside the folder when it is not in
// the base dir (the setting changed since) or on another file system than
// the base dir's trash. The trash is this repository's own
// (place.OwnFolder).
func (m *Remover) trashPaths(rec *record.Record, pid int) []string {
	return m.trashIn(rec, pid, m.Place.OwnFolder)
}

// trashCandidates are where a removal by process pid may have moved the
// task's folder: the trashPaths, and, for a removal an earlier git-wt
// began, the same places in its plain trash of a shared base dir (the
// record in state removing says the folder there is this task's).
func (m *Remover) trashCandidates(rec *record.Record, pid int) []string {
	return append(m.trashPaths(rec, pid), m.trashIn(rec, pid, m.Place.PlainFolder)...)
}

// trashIn is trashPaths with the trash folder of a dir that folder says
// ("" for none).
func (m *Remover) trashIn(rec *record.Record, pid int, folder func(dir, kind string) string) []string {
	name := rec.Slug + "." + strconv.Itoa(pid)
	var paths []string
	dirs := []string{filepath.Dir(rec.Path)}
	if m.Settings != nil && m.Settings.BaseDir != "" && fsutil.Within(m.Settings.BaseDir, rec.Path) {
		dirs = []string{m.Settings.BaseDir, filepath.Dir(rec.Path)}
	}
	for _, dir := range dirs {
		if trash := folder(dir, place.TrashDir); trash != "" && !slices.Contains(paths, filepath.Join(trash, name)) {
			paths = append(paths, filepath.Join(trash, name))
		}
	}
	return paths
}

// checkedMark is the empty file beside a folder in the trash that says
// its removal looked at it there and went on (its second check passed, or
// --force): once git's admin entry is gone too, what is left of the folder
// is the removal's to delete. Without it, a folder whose admin entry is
// gone (git worktree prune takes a moved folder for a deleted one) has
// not been looked at, and is looked at before anything is deleted.
func checkedMark(trash string) string { return trash + place.CheckedSuffix }

// discardMoved deletes a folder moved into the trash, its checked mark,
// and the trash folder when that is empty then.
func discardMoved(trash string) error {
	if err := fsutil.RemoveAll(trash); err != nil {
		return heldError(trash, err)
	}
	os.Remove(checkedMark(trash))
	os.Remove(filepath.Dir(trash)) // only if empty
	return nil
}

// moveAside renames the task's folder into the trash and returns where it
// went.
func (m *Remover) moveAside(ctx context.Context, rec *record.Record) (string, error) {
	var err error
	for _, trash := range m.trashPaths(rec, os.Getpid()) {
		if err = renameInto(ctx, rec.Path, trash); err == nil {
			return trash, nil
		}
		os.Remove(filepath.Dir(trash)) // only if empty
		if !fsutil.CrossDevice(err) {
			break
		}
	}
	return "", err
}

// renameInto renames the folder at path to dest, making dest's folder
// first. Whoever empties that folder removes it (another removal, a
// deleter), which can happen between its making and the rename: the
// folder is then made again, a few times.
func renameInto(ctx context.Context, path, dest string) error {
	var err error
	for attempt := range 5 {
		if err = os.MkdirAll(filepath.Dir(dest), 0o777); err != nil {
			return err
		}
		if attempt == 0 {
			task.Checkpoint(ctx, "rm:trash-made")
		}
		err = fsutil.Rename(path, dest)
		if _, serr := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) || serr != nil {
			return err // done, or failed for another reason than the folder
		}
	}
	return err
}

// recheck looks at the moved folder again, as rm looked at it in place:
// a change (as count counts them; by default the folder's status) or a
// user that appeared since is a refusal (exit 3).
//
// The users come first: a process whose working directory is in the
// moved folder writes there by relative paths, and one that wrote and
// exited between a status and a look for users would be seen by neither.
// No process can enter the folder after the move (its path is gone), so
// once none is in it, the status that follows sees every file written.
func (m *Remover) recheck(ctx context.Context, rec *record.Record, trash string, r *Removal, count func(ctx context.Context, dir string) (int, error)) (Outcome, error) {
	if err := m.inUse(rec, r, trash, " (it started while the worktree was being removed, so the worktree was put back)"); err != nil {
		return KeptInUse, err
	}
	if count == nil {
		count = m.movedDirtyCount
	}
	n, err := count(git.MovedAside(ctx, trash, rec.Path), trash)
	if err != nil {
		return KeptDirty, m.Refuse(rec, "status-failed", "cannot read the status of %s after moving it aside (%v), so it counts as dirty and was put back: use --force to remove it anyway", rec.Path, err)
	}
	task.Checkpoint(ctx, "rm:rechecked")
	if n > 0 {
		r.Dirty = n
		return KeptDirty, m.Refuse(rec, "dirty", "%s changed while it was being removed: it has %d uncommitted %s now, so it was put back as it was; use --force to discard %s", rec.Path, n, text.Plural(n, "change", "changes"), text.Plural(n, "it", "them"))
	}
	return Deleted, nil
}

// movedDirtyCount counts the changes in a worktree moved aside. git
// reaches an initialised submodule's git dir (in the worktree's admin
// entry) by a path relative to the submodule's folder, which the move
// breaks: in a worktree with such submodules, the second look leaves
// them out (the first, in place, looked into them).
func (m *Remover) movedDirtyCount(ctx context.Context, dir string) (int, error) {
	_, admin, err := git.AdminDir(dir)
	if err != nil {
		return 0, err
	}
	if _, err := os.Lstat(filepath.Join(admin, "modules")); err != nil {
		return m.withHidden(ctx, dir, m.DirtyCount)
	}
	return m.withHidden(ctx, dir, func(ctx context.Context, dir string) (int, error) {
		st, err := m.Git.Status(ctx, dir, git.StatusOptions{IgnoreSubmodules: "all"})
		return len(st.Entries), err
	})
}

// inUse is the refusal for a worktree (at path: in place, or moved
// aside) that a process works in, or whose users cannot be seen (SPEC
// §15: unknown is never "nobody"); nil when nobody does, or when the
// removal was told to ignore its users. When that process is the caller
// (the shell that ran git wt rm from inside the worktree), the message
// says how to step out first.
func (m *Remover) inUse(rec *record.Record, r *Removal, path, why string) error {
	if r.ignoreInUse {
		return nil
	}
	users, err := r.users(path)
	if err != nil {
		return m.Refuse(rec, "in-use", "%s: cannot tell whether a process works in it (%v)%s: stop what works there, then use --ignore-in-use (only this check is skipped), or --force", rec.Path, err, why)
	}
	if len(users) == 0 {
		return nil
	}
	u := users[0]
	if u.Caller {
		return m.Refuse(rec, "in-use", "%s is the working directory of the shell that runs this command (process %d, %s)%s: run cd \"$(git wt path --main)\" first, then git wt rm %s; or use --force", rec.Path, u.PID, u.Name, why, text.ShellQuote(rec.Task))
	}
	return m.Refuse(rec, "in-use", "%s is in use by process %d (%s, working directory %s)%s: stop it first, or use --force", rec.Path, u.PID, u.Name, u.Cwd, why)
}

// errRemovedMeanwhile says that another process removed the task between
// rm's look and its own removal: rm is idempotent, that is success.
var errRemovedMeanwhile = errors.New("task removed meanwhile by another process")

// lookAgain is a refusal that another removal of the task caused by
// putting it back: the task is to be looked at again. It reads as the
// refusal it wraps.
type lookAgain struct{ error }

func (l lookAgain) Unwrap() error { return l.error }

// removable reports whether rm may start on a task in state s.
func removable(s record.State) bool {
	return s == record.Active || s == record.Adopted || s == record.Failed
}

// beginRemoval moves the task to state removing, signed by this process,
// if it is still in the state rm examined (another process may have
// started a merge, say, or finished a creation meanwhile).
func (m *Remover) beginRemoval(ctx context.Context, e *record.Entry, examined record.State) error {
	me := task.Self()
	before := *e.Record
	err := m.Update(ctx, e, func(r *record.Record) error {
		if r.State != examined {
			return exitcode.Refusedf("task %q changed meanwhile (from %s to %s), so nothing was removed: run git wt rm %s again to look at it again", r.Task, examined, r.State, text.ShellQuote(r.Task))
		}
		if err := r.Move(record.Removing, me); err != nil {
			return task.NotNow(r, record.Removing, err)
		}
		if examined == record.Creating || examined == record.Initializing {
			// Should this process die, the record must not say the task
			// was active: its creation never finished (priorOfRemoval).
			r.Init.Status, r.Init.Error = record.InitFailed, fmt.Sprintf("its creation did not finish, and its removal by process %d was stopped", me.PID)
		}
		return nil
	})
	if err != nil && e.Record.State == record.Removing && e.Record.Owner() == me {
		*e.Record = before // the write failed: the stored record is as it was
	}
	return err
}

// putBack ends a removal that changed nothing after all: the task goes
// back to the state it had (a stuck creation to failed, kept for a person
// to look at; a merge's task to active, the merge is done).
func (m *Remover) putBack(e *record.Entry, prior record.State) {
	switch {
	case prior == record.Creating || prior == record.Initializing:
		prior = record.Failed
	case prior == record.Removing:
		prior = priorOfRemoval(e.Record)
	case !record.CanMove(record.Removing, prior):
		prior = record.Active
	}
	m.SetState(e, prior)
}

// priorOfRemoval guesses the state a task had before a removal whose
// process died: adopted for a worktree git-wt did not make, failed after
// a failed init, else active.
func priorOfRemoval(rec *record.Record) record.State {
	switch {
	case rec.Init.Status == record.InitFailed:
		return record.Failed
	case rec.Task == rec.Branch && !rec.Init.Ran && rec.BranchCreated != nil && !*rec.BranchCreated:
		return record.Adopted
	}
	return record.Active
}

// halfRemoved is the error of a removal that stopped half way: the task
// stays in state removing, and the message says how to finish.
func halfRemoved(rec *record.Record, format string, args ...any) error {
	return exitcode.Failedf("%s; the task is left in state removing: fix that, then run git wt rm %s (or git wt doctor --fix) to finish removing it", fmt.Sprintf(format, args...), text.ShellQuote(rec.Task))
}

// takeOver prepares a task for removal: one that another live process is
// creating, merging, syncing or removing is refused (busy); one left in
// state removing by a process that died gets its folder back from the
// trash when its removal had not passed the second check (git still has
// its admin entry), or loses what is left of it there when it had (its
// checked mark; a folder without one is looked at first, and put back
// when it holds anything its branch does not).
func (m *Remover) takeOver(ctx context.Context, e *record.Entry, dryRun bool) error {
	rec := e.Record
	switch rec.State {
	case record.Active, record.Adopted, record.Failed:
		return nil
	}
	if rec.Owner().SameProcess(task.Self()) {
		// This process's own merge, cleaning up. By its whole signature:
		// every git-wt that is the first process of a PID namespace is
		// pid 1 on the same host, and another's removal is not this one's.
		return nil
	}
	o := task.Owner(rec)
	task.Checkpoint(ctx, "rm:examined")
	gone, err := m.OwnerGone(ctx, e)
	if errors.Is(err, task.ErrMovedOn) {
		// Read while its process still worked: look at it as it is now.
		if err := m.Reload(ctx, e); err != nil {
			if exitcode.Of(err) == exitcode.NotFound {
				return errRemovedMeanwhile
			}
			return err
		}
		return lookAgain{exitcode.Refusedf("task %q changed meanwhile (process %d finished with it), so nothing was removed: run git wt rm %s again to look at it again", rec.Task, o.PID, text.ShellQuote(rec.Task))}
	}
	if err != nil {
		return err
	}
	if !gone {
		if rec.State == record.Removing && m.awaitRemoval(ctx, e) {
			return errRemovedMeanwhile
		}
		if rec = e.Record; !removable(rec.State) {
			return exitcode.Refusedf("task %q is being worked on by process %d (state %s): wait for it to finish, then run git wt rm %s again", rec.Task, task.Owner(rec).PID, rec.State, text.ShellQuote(rec.Task))
		}
		return nil // put back by the other removal: look at it again
	}
	if rec.State == record.Merging && !dryRun {
		m.takeBackMerge(ctx, rec)
	}
	if rec.State != record.Removing || dryRun {
		return nil
	}
	for _, trash := range m.trashCandidates(rec, o.PID) {
		if _, err := os.Lstat(trash); err != nil {
			os.Remove(checkedMark(trash)) // the folder was deleted already
			continue
		}
		if _, err := os.Lstat(rec.Path); err == nil {
			return exitcode.Failedf("both %s and %s (left by an interrupted removal) exist: look at both, delete the one you do not need, then run git wt rm %s again", rec.Path, trash, text.ShellQuote(rec.Task))
		}
		if priorOfRemoval(rec) == record.Failed && m.holdsNothingOfItsOwn(ctx, rec, trash) {
			// A failed task's folder (an unfinished creation's, whose
			// checkout may have stopped half way), put back, would be
			// looked at in place, where a file the checkout never wrote
			// reads as a change. It is looked at here, against its branch
			// (a missing file does not count): holding nothing of its
			// own, it goes, as the creation's rollback would take it.
			if err := discardMoved(trash); err != nil {
				return halfRemoved(rec, "cannot delete %s: %v", trash, err)
			}
			continue
		}
		if m.Registered(ctx, rec.Path) {
			// The removal had not passed its second check: the folder goes
			// back, and is looked at again like any other.
			if err := fsutil.Rename(trash, rec.Path); err != nil {
				return halfRemoved(rec, "cannot move %s back to %s: %v", trash, rec.Path, heldError(trash, err))
			}
			os.Remove(checkedMark(trash))
			os.Remove(filepath.Dir(trash)) // only if empty
			break
		}
		// git's admin entry is gone. If the removal removed it, it had
		// looked at the folder (its mark says so): what is left is to
		// delete. If not (a git worktree prune took the moved folder for
		// a deleted one), nobody has looked at it since the move, and a
		// removal never deletes what it has not looked at: a folder that
		// holds anything its branch does not goes back, and is kept.
		if _, err := os.Lstat(checkedMark(trash)); err != nil {
			if n, err := m.unsavedInTrash(ctx, rec, trash); err != nil || n > 0 {
				if err := fsutil.Rename(trash, rec.Path); err != nil {
					return halfRemoved(rec, "cannot move %s back to %s: %v", trash, rec.Path, heldError(trash, err))
				}
				os.Remove(filepath.Dir(trash)) // only if empty
				m.Warn("%s, left by an interrupted removal, was never checked and git's admin entry of it is gone; it holds work its branch %s does not (or cannot be read), so it was put back at %s and kept", trash, rec.Branch, rec.Path)
				break
			}
		}
		if err := discardMoved(trash); err != nil {
			return halfRemoved(rec, "cannot delete %s: %v", trash, err)
		}
	}
	if _, err := os.Lstat(rec.Path); err == nil {
		m.putBack(e, record.Removing) // an ordinary task again, looked at like any other
		if e.Record.State == record.Failed && checkoutNeverBegan(rec.Path) {
			m.FinishKeptCheckout(ctx, e.Record) // an unfinished creation's: on its branch
		}
	}
	return nil
}

// takeBackMerge takes back what the task's merge, killed mid-checkout,
// left in the worktree of its base: once the task is removed, nothing
// tells those files from the user's. What it cannot take back is said,
// and the removal goes on: the task is the user's to remove.
func (m *Remover) takeBackMerge(ctx context.Context, rec *record.Record) {
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err == nil {
		err = m.TakeBackMerge(ctx, rec, wts, nil)
	}
	if err != nil {
		m.Warn("the merge of %s was interrupted, and what it left in the worktree of %s was not looked at (%v): look at it with git status there", rec.Branch, rec.Base, err)
	}
}

// checkoutNeverBegan reports whether the worktree at dir is one whose
// creation registered it and never began its checkout: no index, and a
// HEAD on no branch (detached at the start commit).
func checkoutNeverBegan(dir string) bool {
	_, admin, err := git.AdminDir(dir)
	if err != nil {
		return false
	}
	if _, err := os.Lstat(filepath.Join(admin, "index")); err == nil {
		return false
	}
	head, _, ok := git.ReadHead(admin)
	return ok && head == ""
}

// holdsNothingOfItsOwn reports whether a folder a dead removal moved
// into the trash holds nothing that the tip of the task's branch does not
// (unsavedInTrash: files missing from it do not count) and no process
// works in it.
func (m *Remover) holdsNothingOfItsOwn(ctx context.Context, rec *record.Record, trash string) bool {
	if users, err := proc.UsersOf(trash); err != nil || len(users) > 0 {
		return false
	}
	n, err := m.unsavedInTrash(ctx, rec, trash)
	return err == nil && n == 0
}

// unsavedInTrash counts the files in a folder moved into the trash whose
// git admin entry is gone (so its own status cannot be read) that the tip
// of the task's branch does not hold as they are: untracked, or changed.
// It compares the folder with that tip through an index of its own; a
// file missing from the folder loses nothing and does not count.
func (m *Remover) unsavedInTrash(ctx context.Context, rec *record.Record, trash string) (int, error) {
	// In git-wt's state dir, where the repairs' other temporary indexes
	// live (and those a killed one left are deleted).
	if err := os.MkdirAll(m.StateDir("tmp"), 0o777); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp(m.StateDir("tmp"), "trash-index-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := m.Git.Index().ReadTreeInto(ctx, m.Repo.MainDir, index, task.BranchRef(rec.Branch)); err != nil {
		return 0, err
	}
	st, err := m.Git.Status(ctx, trash, git.StatusOptions{Untracked: "all", IgnoreSubmodules: "all",
		Env: []string{"GIT_DIR=" + m.Repo.CommonDir, "GIT_WORK_TREE=" + trash, "GIT_INDEX_FILE=" + index}})
	if err != nil {
		return 0, err
	}
	// HEAD is the main worktree's here (git's own HEAD of the folder went
	// with its admin entry): only the folder against that index counts.
	n := 0
	for _, e := range st.Entries {
		if e.Kind == '?' || len(e.XY) == 2 && e.XY[1] != '.' && e.XY[1] != 'D' {
			n++
		}
	}
	return n, nil
}

// awaitRemoval waits (up to wt.lockTimeout) while another live process
// removes the task, and reports whether the task is gone; otherwise e
// holds the task as it is now.
func (m *Remover) awaitRemoval(ctx context.Context, e *record.Entry) bool {
	deadline := time.Now().Add(m.Settings.LockTimeout)
	for e.Record.State == record.Removing && time.Now().Before(deadline) {
		switch gone, err := m.OwnerGone(ctx, e); {
		case errors.Is(err, task.ErrMovedOn):
			// It finished after the last read: read what it left.
		case err != nil || gone:
			return false
		default:
			select {
			case <-ctx.Done():
				return false
			case <-time.After(task.PollInterval):
			}
		}
		if err := m.Reload(ctx, e); err != nil {
			return exitcode.Of(err) == exitcode.NotFound
		}
	}
	return false
}
