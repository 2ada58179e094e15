package removal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// RemoveOptions are the flags of `git wt rm`.
type RemoveOptions struct {
	Force      bool // discard changes, ignore locks and use, delete unmerged branches
	KeepBranch bool
	DryRun     bool
	// KeepUnmerged keeps a branch whose commits exist nowhere else even
	// with Force: gc and doctor --fix may discard a dirty orphan, never
	// commits.
	KeepUnmerged bool
	// MergedTip is the commit `git wt merge` just merged: the branch is
	// deleted if it still points there (a squash leaves it no ancestor).
	MergedTip string
	// Recheck, with Force, still has the folder looked at again once it is
	// moved aside (users first, then this count of what Force may not
	// discard: a rollback's files that its checkout did not write); a
	// count above 0 puts it back, as a change does without Force.
	Recheck func(ctx context.Context, dir string) (int, error)
	// PutBack is the state a task goes back to when its removal is
	// refused after it began ("" for the state it had): merge's cleanup
	// puts its task back to the state it had before the merge.
	PutBack record.State
	// CallersAway: the processes that started this one do not make the
	// worktree in use. An agent runner's remove hook runs from the agent
	// that worked there, which is done with it (SPEC §13).
	CallersAway bool
	// IgnoreInUse skips the check for processes working in the worktree,
	// and only that check: for an agent in a sandbox, which cannot see
	// who works there, removing its own finished task (SPEC §15).
	IgnoreInUse bool
	// Reap ends the processes working in the worktree (SIGTERM, then
	// SIGKILL) before it is removed, in place of refusing for them; never
	// when they cannot be seen, never the callers (SPEC §17). Not Force.
	Reap bool
	// Background: the folder, once checked and its task gone, is deleted
	// by a detached process (background.go), and rm returns without
	// waiting for it longer than wt.rmWait: a deletion that fails by
	// then is the removal's error. Not for a removal that makes room on
	// a full disk.
	Background bool
	// Wait (with Background): the removal waits for its deleter to end.
	Wait bool
	// Why names, in a saved state's info, what removed the task with
	// Force ("" for rm --force; save.go).
	Why string
}

// Outcome is what a removal did, or would do, with the worktree or with
// the branch; rm --json prints it.
type Outcome string

// Outcomes of a removal, for the worktree and for the branch.
const (
	Deleted        Outcome = "deleted"
	WouldDelete    Outcome = "would_delete"
	AlreadyGone    Outcome = "already_gone"
	NotFound       Outcome = "not_found"
	KeptDirty      Outcome = "kept_dirty"
	KeptLocked     Outcome = "kept_locked"
	KeptInUse      Outcome = "kept_in_use"
	KeptNotOurs    Outcome = "kept_not_ours"    // a symlink or file where the worktree was
	KeptBusy       Outcome = "kept_busy"        // another process is creating, merging or removing it
	KeptNotCreated Outcome = "kept_not_created" // a branch that existed before the task
	KeptUnmerged   Outcome = "kept_unmerged"
	KeptCheckedOut Outcome = "kept_checked_out"
	KeptByFlag     Outcome = "kept_by_flag"
	KeptByConfig   Outcome = "kept_by_config"
	KeptPreRemove  Outcome = "kept_pre_remove" // a wt.preRemove command failed
	Failed         Outcome = "failed"
)

// keptWhole is r for a removal that stopped before it removed anything:
// a branch it meant to delete is kept, for the reason the worktree was.
func (r *Removal) keptWhole() *Removal {
	if r.BranchOutcome == Deleted {
		r.BranchOutcome = r.WorktreeOutcome
	}
	return r
}

// Removal reports what rm did (or would do) with one task.
type Removal struct {
	Task            string   `json:"task"`
	Slug            string   `json:"slug,omitempty"`
	Path            string   `json:"path,omitempty"`
	Branch          string   `json:"branch,omitempty"`
	WorktreeOutcome Outcome  `json:"worktree_outcome"`
	BranchOutcome   Outcome  `json:"branch_outcome,omitempty"`
	Dirty           int      `json:"dirty,omitempty"`
	Unmerged        int      `json:"unmerged_commits,omitempty"`
	Reaped          []Reaped `json:"reaped,omitempty"`
	Saved           string   `json:"saved,omitempty"` // the saved state's ID (save.go): git wt restore takes it
	Err             error    `json:"-"`
	branchSHA       string   // where the branch was when rm read it
	callersAway     bool     // RemoveOptions.CallersAway, for the second look
	ignoreInUse     bool     // RemoveOptions.IgnoreInUse, likewise
	aside           string   // the folder in the trash left to delete once the task is gone (Background)
	gone            bool     // the task is gone, if not all its files (Err then says where they are)
}

// Remove removes the task arg names: its worktree, then its branch when
// that loses no commits, then its record (SPEC §7). A refusal changes
// nothing and sets Err to an exit-3 error.
func (m *Remover) Remove(ctx context.Context, arg string, o RemoveOptions) *Removal {
	e, err := m.Find(ctx, arg)
	if exitcode.Of(err) == exitcode.NotFound {
		return m.removeUnknown(ctx, arg)
	}
	if err != nil {
		return &Removal{Task: arg, WorktreeOutcome: Failed, Err: err}
	}
	if e.Err != nil {
		return &Removal{Task: arg, Slug: e.Slug, WorktreeOutcome: Failed, Err: task.Unreadable(e)}
	}
	return m.RemoveEntry(ctx, e, o)
}

// RemoveEntry removes the task of a record already read. A refusal that
// another process caused by changing the task meanwhile (another rm of it
// moved its folder aside, or put it back) is not the answer: the task is
// looked at again, as the user would, a bounded number of times.
func (m *Remover) RemoveEntry(ctx context.Context, e *record.Entry, o RemoveOptions) *Removal {
	r := m.removeEntry(ctx, e, o)
	if (r.Err == nil || r.gone) && !o.DryRun && m.Gone != nil {
		m.Gone(ctx, r)
	}
	return r
}

func (m *Remover) removeEntry(ctx context.Context, e *record.Entry, o RemoveOptions) *Removal {
	for attempt := 1; ; attempt++ {
		r := m.removeOnce(ctx, e, o)
		if exitcode.Of(r.Err) != exitcode.Refused || attempt >= task.MaxRaces || ctx.Err() != nil {
			return r
		}
		switch changed, err := m.changedMeanwhile(ctx, e, r.Err); {
		case exitcode.Of(err) == exitcode.NotFound:
			return &Removal{Task: r.Task, Slug: r.Slug, Path: r.Path, Branch: r.Branch, WorktreeOutcome: AlreadyGone}
		case err != nil || !changed:
			return r
		}
	}
}

// changedMeanwhile reports whether the task's record changed since this
// process last read or wrote it (its refusal may be stale), reading it
// into e again; or whether the refusal itself says another removal put
// the task back.
func (m *Remover) changedMeanwhile(ctx context.Context, e *record.Entry, refusal error) (bool, error) {
	if errors.As(refusal, new(lookAgain)) {
		return true, nil
	}
	seen := e.OID
	if err := m.Reload(ctx, e); err != nil {
		return false, err
	}
	return e.OID != seen, nil
}

// removeOnce looks at the task once and removes it, or refuses.
func (m *Remover) removeOnce(ctx context.Context, e *record.Entry, o RemoveOptions) *Removal {
	rec := e.Record
	r := &Removal{Task: rec.Task, Slug: rec.Slug, Path: rec.Path, Branch: rec.Branch, callersAway: o.CallersAway, ignoreInUse: o.IgnoreInUse}
	if err := m.takeOver(ctx, e, o.DryRun); err != nil {
		if errors.Is(err, errRemovedMeanwhile) {
			r.WorktreeOutcome = AlreadyGone // another rm did it all
			return r
		}
		r.WorktreeOutcome, r.Err = Failed, err
		if exitcode.Of(err) == exitcode.Refused {
			r.WorktreeOutcome = KeptBusy
		}
		return r
	}
	rec = e.Record
	if !o.DryRun {
		cl, err := m.holdCommits(ctx, rec, o.Force)
		if err != nil {
			r.WorktreeOutcome, r.Err = KeptBusy, err
			return r
		}
		defer cl.Release()
	}
	dirty := m.startDirtyCount(ctx, rec.Path, !o.Force, !o.DryRun && !o.IgnoreInUse) // beside the worktree list
	// Whether deleting the branch would lose commits is asked beside the
	// status too, when the branch may be deleted: a refused rm wastes it.
	// With Force, the same answers say what to save first (save.go).
	mayDelete := !o.KeepBranch && m.Settings.DeleteBranch && rec.CreatedBranch(m.Settings.BranchPrefix) && (!o.Force || o.KeepUnmerged || saves(o)) && o.MergedTip == ""
	unmerged := early(mayDelete, func() (int, error) { return m.UnmergedCommits(ctx, rec) })
	snapshot := m.startSnapshot(ctx, rec.Path, o)
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		r.WorktreeOutcome, r.Err = Failed, err
		return r
	}
	if r.WorktreeOutcome, r.Err = m.checkWorktree(ctx, rec, wts, o, r, dirty); r.Err != nil {
		return r
	}
	r.BranchOutcome = m.decideBranch(ctx, rec, wts, o, r, unmerged)
	if r.BranchOutcome == Failed {
		r.Err = exitcode.Failedf("cannot read branch %s, so nothing was removed: run git wt rm %s again", rec.Branch, rec.Slug)
		return r
	}
	if o.DryRun {
		if r.WorktreeOutcome == Deleted {
			r.WorktreeOutcome = WouldDelete
		}
		if r.BranchOutcome == Deleted {
			r.BranchOutcome = WouldDelete
		}
		return r
	}
	if r.Err = m.saveDiscarded(ctx, rec, wts, o, r, snapshot, unmerged); r.Err != nil {
		r.WorktreeOutcome = KeptDirty
		return r.keptWhole()
	}
	if outcome, err := m.beforeRemoval(ctx, rec, o, r); err != nil {
		r.WorktreeOutcome, r.Err = outcome, err
		return r.keptWhole()
	}
	task.Checkpoint(ctx, "rm:checked")
	// From here on an interrupt lets the removal end, or put back what
	// it did: a task is never left half removed by a Ctrl-C.
	ctx = context.WithoutCancel(ctx)
	if r.WorktreeOutcome, r.Err = m.removeWorktree(ctx, e, o, r); r.Err != nil {
		switch {
		case errors.Is(r.Err, errRemovedMeanwhile):
			r.Err, r.BranchOutcome = nil, "" // another rm did it all: nothing left to do
		case exitcode.Of(r.Err) != exitcode.Refused: // refusals are logged as such
			m.LogEvent(rec, "remove-failed", r.Err.Error())
		}
		return r.keptWhole()
	}
	rec = e.Record
	if r.BranchOutcome != KeptUnmerged {
		m.reparentChildren(ctx, rec)
	}
	if r.BranchOutcome == Deleted {
		// The branch, only if it is still where rm read it (a commit made
		// since keeps it), and the record go in one transaction; when that
		// fails, step by step, still only from where the branch was read.
		err := m.Git.DeleteRefs(ctx, m.Repo.MainDir, []git.Ref{{Name: task.BranchRef(rec.Branch), OID: r.branchSHA}, {Name: e.Ref(), OID: e.OID}})
		if err != nil {
			if err := m.deleteBranch(ctx, rec.Branch, r.branchSHA); err != nil {
				// Keep the record: running rm again finishes the job.
				r.BranchOutcome, r.Err = Failed, halfRemoved(rec, "removed %s but could not delete branch %s (%v)", rec.Path, rec.Branch, err)
				m.LogEvent(rec, "remove-failed", r.Err.Error())
				return r
			}
			err = m.deleteRecord(ctx, e)
		}
		if err != nil {
			r.Err = halfRemoved(rec, "removed %s but could not delete its record %s (%v)", rec.Path, e.Ref(), err)
			m.LogEvent(rec, "remove-failed", r.Err.Error())
			return r
		}
		m.branchDeleted(ctx, rec.Branch, r.branchSHA)
	} else if err := m.deleteRecord(ctx, e); err != nil {
		r.Err = halfRemoved(rec, "removed %s but could not delete its record %s (%v)", rec.Path, e.Ref(), err)
		m.LogEvent(rec, "remove-failed", r.Err.Error())
		return r
	}
	r.gone = true
	deleted := func(bool) error { return nil }
	if r.aside != "" {
		deleted = m.deleteAside(rec, r.aside)
	}
	git.ForgetConfigCache(m.Repo.CommonDir, rec.Path)
	m.Forget(rec.Slug)
	m.LogEvent(rec, "removed", fmt.Sprintf("worktree %s, branch %s", r.WorktreeOutcome, r.BranchOutcome))
	if r.Err = deleted(o.Wait); r.Err != nil {
		m.LogEvent(rec, "remove-failed", r.Err.Error())
	}
	return r
}

// checkWorktree decides whether the worktree may go, and refuses (exit 3,
// nothing changed) when it holds work or is protected.
func (m *Remover) checkWorktree(ctx context.Context, rec *record.Record, wts []git.Worktree, o RemoveOptions, r *Removal, dirty func() (int, error)) (Outcome, error) {
	if fsutil.SamePath(rec.Path, m.Repo.MainDir) || len(wts) > 0 && fsutil.SamePath(rec.Path, wts[0].Path) {
		return KeptNotOurs, m.Refuse(rec, "main-worktree", "%s is the main worktree: git-wt never removes it", rec.Path)
	}
	if err := m.RefuseNested(rec, wts); err != nil {
		return KeptNotOurs, err
	}
	st, err := os.Lstat(rec.Path)
	if os.IsNotExist(err) {
		return AlreadyGone, nil // deleted behind our back: drop what is left
	}
	if err != nil {
		return Failed, err
	}
	if !st.IsDir() && !o.Force {
		// A symlink (or file) replaced the worktree: removing through it
		// would delete someone else's files.
		return KeptNotOurs, m.Refuse(rec, "not-a-directory", "%s is no longer a directory (a symlink or file replaced the worktree): remove it yourself, or use --force to drop only the link and the task", rec.Path)
	}
	if err := m.refuseNotOurs(ctx, rec, wts, o.Force); err != nil {
		return KeptNotOurs, err
	}
	if !st.IsDir() {
		return Deleted, nil // only the link goes (removeWorktree), never its target
	}
	if mp, err := fsutil.MountInside(rec.Path); err == nil && mp != "" {
		return KeptNotOurs, m.Refuse(rec, "contains-mount", "%s holds a mounted file system at %s: unmount it first (git-wt never deletes into a mount, whose files live elsewhere)", rec.Path, mp)
	}
	wt := task.FindWorktree(wts, rec.Path)
	locked := rec.Locked || wt != nil && wt.Locked
	if locked && !o.Force {
		return KeptLocked, m.Refuse(rec, "locked", "%s is locked: run git wt unlock %s first, or use --force", rec.Path, rec.Slug)
	}
	if !o.Force {
		n, err := dirty()
		if err != nil {
			return KeptDirty, m.Refuse(rec, "status-failed", "cannot read the status of %s (%v), so it counts as dirty: use --force to remove it anyway", rec.Path, err)
		}
		if n > 0 {
			r.Dirty = n
			return KeptDirty, m.Refuse(rec, "dirty", "%s has %d uncommitted %s: use --force to discard %s", rec.Path, n, text.Plural(n, "change", "changes"), text.Plural(n, "it", "them"))
		}
		if err := m.inUse(rec, r, rec.Path, ""); err != nil && !o.Reap {
			return KeptInUse, err
		}
		if n, err := m.SubmoduleOnlyCommits(ctx, rec.Path); err != nil || n > 0 {
			return KeptUnmerged, m.refuseSubmoduleCommits(rec, r, n, err)
		}
	}
	return Deleted, nil
}

// Reaped is a process rm --reap ended.
type Reaped struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
}

// beforeRemoval does what ends a task's work before its worktree goes:
// with Reap, the processes working there are ended; then the
// wt.preRemove commands run there. Either refuses (exit 3, nothing
// removed) when it could not.
func (m *Remover) beforeRemoval(ctx context.Context, rec *record.Record, o RemoveOptions, r *Removal) (Outcome, error) {
	if st, err := os.Lstat(rec.Path); err != nil || !st.IsDir() {
		return "", nil // nothing there to end or to run in
	}
	if o.Reap {
		ended, err := proc.Reap(rec.Path, proc.ReapGrace)
		for _, u := range ended {
			r.Reaped = append(r.Reaped, Reaped{PID: u.PID, Name: u.Name})
		}
		if len(ended) > 0 {
			m.LogEvent(rec, "reaped", fmt.Sprintf("%d processes", len(ended)))
		}
		if err != nil {
			return KeptInUse, m.Refuse(rec, "in-use", "%s: cannot end the processes working in it (%v), so nothing was removed: stop them yourself, then git wt rm %s", rec.Path, err, text.ShellQuote(rec.Task))
		}
		if !o.Force {
			if err := m.inUse(rec, r, rec.Path, ""); err != nil {
				return KeptInUse, err // a caller: never reaped
			}
		}
	}
	if err := m.preRemove(ctx, rec, o.Force); err != nil {
		return KeptPreRemove, err
	}
	return "", nil
}

// refuseSubmoduleCommits is the refusal of a task whose submodules hold
// n commits that exist nowhere else (or that cannot be counted: err):
// the removal would delete them with the task's module repositories.
func (m *Remover) refuseSubmoduleCommits(rec *record.Record, r *Removal, n int, err error) error {
	if err != nil {
		return m.Refuse(rec, "unmerged-submodule", "cannot tell whether the submodules of %s hold commits that exist nowhere else (%v), so it was kept: use --force to remove it anyway", rec.Path, err)
	}
	r.Unmerged = n
	return m.Refuse(rec, "unmerged-submodule", "the submodules of %s hold %d %s nowhere else (not pushed, not in the main worktree's submodules): push or fetch %s into the main worktree's submodule, or use --force to delete %[4]s", rec.Path, n, text.Plural(n, "commit that exists", "commits that exist"), text.Plural(n, "it", "them"))
}

// startDirtyCount starts counting the changes in the worktree at path
// (when it is a folder and the count is wanted) and returns the wait for
// the answer.
//
// With mayRefresh, and when no process works there, the status writes
// back the stat data it refreshed, as the status of git worktree remove
// does (inspect's DirtyCountRefreshing): a worktree whose index was
// written in the second of its checkout (every new one) is otherwise read
// whole by this status, again by the second look, and rm costs twice
// plain git's.
func (m *Remover) startDirtyCount(ctx context.Context, path string, wanted, mayRefresh bool) func() (int, error) {
	st, err := os.Lstat(path)
	wanted = wanted && err == nil && st.IsDir()
	if mayRefresh {
		// Started only when asked for: a status that may hold the index
		// lock must never be left running when rm ends early (a refusal
		// before the dirty check), where its end could be a SIGKILL (the
		// last process of a PID namespace) that leaves a stale lock.
		return early(false, func() (int, error) { return m.withHidden(ctx, path, m.DirtyCountRefreshing) })
	}
	return early(wanted, func() (int, error) { return m.withHidden(ctx, path, m.DirtyCount) })
}

// withHidden is count's changes in the worktree at path, and the local
// edits git status does not look at (inspect's HiddenChanges: a file
// marked assume-unchanged or skip-worktree), which git worktree remove
// deletes as it deletes every file: without --force, rm keeps them.
func (m *Remover) withHidden(ctx context.Context, path string, count func(ctx context.Context, path string) (int, error)) (int, error) {
	n, err := count(ctx, path)
	if err != nil {
		return n, err
	}
	hidden, err := m.HiddenChanges(ctx, path)
	return n + hidden, err
}

// early runs f at once in the background when now is true, else when its
// answer is first asked for, and returns the function that asks.
func early[T any](now bool, f func() (T, error)) func() (T, error) {
	if !now {
		return sync.OnceValues(f)
	}
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() {
		v, err := f()
		c <- result{v, err}
	}()
	return sync.OnceValues(func() (T, error) { r := <-c; return r.v, r.err })
}

// decideBranch says what happens to the task's branch: deleted when that
// loses no commits (merged, or all its commits are elsewhere), else kept.
func (m *Remover) decideBranch(ctx context.Context, rec *record.Record, wts []git.Worktree, o RemoveOptions, r *Removal, unmerged func() (int, error)) Outcome {
	bs, ok := branchInWorktrees(wts, rec.Branch) // mostly: checked out in the task's worktree
	var err error
	if !ok {
		bs, err = m.InspectBranch(ctx, rec.Branch)
	}
	r.branchSHA = bs.SHA
	switch {
	case err != nil:
		m.Warn("cannot read branch %s: %v", rec.Branch, err)
		return Failed
	case !bs.Exists:
		return AlreadyGone
	case o.KeepBranch:
		return KeptByFlag
	case !m.Settings.DeleteBranch:
		return KeptByConfig
	case bs.CheckedOut != "" && bs.CheckedOut != rec.Path:
		return KeptCheckedOut
	case !rec.CreatedBranch(m.Settings.BranchPrefix):
		// The branch existed before the task: --force discards the
		// worktree's changes, never a branch that was not the task's.
		return KeptNotCreated
	case o.Force && !o.KeepUnmerged, o.MergedTip != "" && bs.SHA == o.MergedTip:
		return Deleted
	}
	// A branch still at its base commit has no commits of its own, so it
	// is not merged (SPEC §5); whether deleting it loses commits is the
	// count below.
	if bs.SHA != rec.BaseSHA {
		if merged, err := m.Merged(ctx, rec); err == nil && merged {
			return Deleted
		}
	}
	n, err := unmerged()
	if err != nil {
		m.Warn("cannot tell whether branch %s is merged (%v): keeping it", rec.Branch, err)
		return KeptUnmerged
	}
	if n > 0 {
		r.Unmerged = n
		return KeptUnmerged
	}
	return Deleted
}

// branchInWorktrees reads a branch from git's worktree list, when a
// worktree has it checked out.
func branchInWorktrees(wts []git.Worktree, branch string) (task.BranchState, bool) {
	for _, wt := range wts {
		if wt.Branch == task.BranchRef(branch) {
			return task.BranchState{Exists: true, SHA: wt.Head, CheckedOut: wt.Path}, true
		}
	}
	return task.BranchState{}, false
}

// removeWorktree deletes the worktree folder and git's admin entry, all
// or nothing (removeaside.go): under the lock the task goes to state
// removing and its folder into the trash; the moved folder is checked
// again (unless --force), and put back with the state when it changed;
// then git's admin entry goes, with git run from the main worktree (the
// command may have started in the one it removes), and the folder is
// deleted out of the lock. A folder that is already gone only loses its
// admin entry. It returns the worktree's outcome; on an error the task is
// either as it was or left in state removing, as the error says.
func (m *Remover) removeWorktree(ctx context.Context, e *record.Entry, o RemoveOptions, r *Removal) (Outcome, error) {
	rec := e.Record
	outcome, prior := r.WorktreeOutcome, rec.State
	back := prior
	if o.PutBack != "" {
		back = o.PutBack
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return Failed, exitcode.Failedf("cannot remove %s: %v; nothing was changed", rec.Path, err)
	}
	if err := m.beginRemoval(ctx, e, prior); err != nil {
		l.Release()
		switch exitcode.Of(err) {
		case exitcode.Refused:
			if e.Record.State == record.Removing && m.awaitRemoval(ctx, e) {
				return AlreadyGone, errRemovedMeanwhile
			}
			if removable(e.Record.State) {
				// The other removal put the task back: what it saw may
				// have been this process's own look.
				return KeptBusy, lookAgain{err}
			}
			return KeptBusy, err
		case exitcode.NotFound:
			return AlreadyGone, errRemovedMeanwhile
		}
		return Failed, exitcode.Failedf("cannot mark task %q as being removed (%v): nothing was changed", rec.Task, err)
	}
	rec = e.Record
	// A removal of a big folder may outlast wt.orphanGrace (SPEC §15):
	// its lease ends before the record is written again (put back, or
	// deleted by the caller).
	stop := m.Renew(e)
	defer stop()
	trash := ""
	st, err := os.Lstat(rec.Path)
	switch {
	case err == nil && !st.IsDir():
		err = os.Remove(rec.Path) // a link (rm --force): never its target
	case err == nil:
		trash, err = m.moveAside(ctx, rec)
	case os.IsNotExist(err):
		err = nil
	}
	l.Release()
	if err != nil {
		stop()
		m.putBack(e, back)
		if fsutil.Held(err) {
			// Windows: a program has a file in it open, and still had
			// after Rename's wait.
			return KeptInUse, m.Refuse(rec, "in-use", "%s", heldRefusal(rec, err))
		}
		return Failed, exitcode.Failedf("cannot move %s aside to remove it (%v): nothing was changed", rec.Path, err)
	}
	task.Checkpoint(ctx, "rm:renamed")
	// putBack moves the folder back where it was and the task to its
	// state: all is as before rm.
	putBack := func() error {
		if trash != "" {
			if err := fsutil.Rename(trash, rec.Path); err != nil {
				return halfRemoved(rec, "cannot move %s back to %s (%v): move it back yourself", trash, rec.Path, heldError(trash, err))
			}
			os.Remove(filepath.Dir(trash)) // only if empty
		}
		stop()
		m.putBack(e, back)
		return nil
	}
	if trash != "" && (!o.Force || o.Recheck != nil) {
		if kept, err := m.recheck(ctx, rec, trash, r, o.Recheck); err != nil {
			if perr := putBack(); perr != nil {
				return Failed, perr
			}
			return kept, err
		}
	}
	if l, err = m.Lock(ctx); err != nil {
		if perr := putBack(); perr != nil {
			return Failed, perr
		}
		return Failed, exitcode.Failedf("cannot remove %s: %v; nothing was changed", rec.Path, err)
	}
	if trash != "" {
		os.WriteFile(checkedMark(trash), nil, 0o666) // best effort: without it, a repair looks again
	}
	gitErr := m.Git.RemoveWorktree(ctx, m.Repo.MainDir, rec.Path)
	if gitErr != nil && m.Registered(ctx, rec.Path) {
		l.Release()
		if trash != "" {
			os.Remove(checkedMark(trash))
		}
		if perr := putBack(); perr != nil {
			return Failed, perr
		}
		return Failed, exitcode.Failedf("cannot remove git's admin entry of %s (%v): nothing was changed", rec.Path, gitErr)
	}
	l.Release()
	task.Checkpoint(ctx, "rm:unregistered")
	// Only what was moved aside and checked is deleted: a folder made at
	// the task's path meanwhile is someone else's. In the background, once
	// the task is gone: until then it is the stuck removal's to finish.
	if trash != "" && o.Background && mayHandOver() {
		r.aside = trash
	} else if trash != "" {
		if err := discardMoved(trash); err != nil {
			return Failed, halfRemoved(rec, "cannot delete %s, the folder of %s moved aside (%v)", trash, rec.Path, err)
		}
	}
	return outcome, nil
}

// users are the processes that make the folder at path in use, callers
// first, the callers left out when they are away; an error when they
// cannot be known (proc.BlindError).
func (r *Removal) users(path string) ([]proc.User, error) {
	users, err := proc.UsersOf(path)
	if r.callersAway {
		users = slices.DeleteFunc(users, func(u proc.User) bool { return u.Caller })
	}
	return users, err
}

// reparentChildren moves the tasks stacked on rec's branch onto rec's own
// base (SPEC §12), each by compare-and-swap, before rec goes: their
// base_sha stays, so their next sync replays only their own commits onto
// the grandparent. Not when rec's branch stays because it holds unmerged
// commits: the children stay on it, and keep those commits.
func (m *Remover) reparentChildren(ctx context.Context, rec *record.Record) {
	all, err := m.Store.AllFromFiles(ctx, m.Repo.CommonDir)
	if err != nil {
		m.Warn("cannot read the tasks stacked on %s (%v): run git wt sync with --base", rec.Branch, err)
		return
	}
	ref := task.BranchRef(rec.Branch)
	for i := range all {
		child := &all[i]
		if child.Record == nil || child.Record.Base != ref || child.Slug == rec.Slug {
			continue
		}
		err := m.Update(ctx, child, func(r *record.Record) error {
			if r.Base == ref {
				r.Base = rec.Base
			}
			return nil
		})
		if err != nil {
			m.Warn("task %q stands on %s, which goes, and could not be moved onto %s: %v", child.Record.Task, rec.Branch, rec.Base, err)
		}
	}
}

// holdCommits takes the task's commit lock for the removal: a commit in
// flight lands before the worktree and the branch are read, and none
// starts until the removal ends (one would move the branch rm is about to
// delete, and leave the task half removed). With --force rm does not wait
// for a commit (a commit hook may be what runs rm): it goes on without
// the lock, as it did before there was one.
func (m *Remover) holdCommits(ctx context.Context, rec *record.Record, force bool) (*lock.Lock, error) {
	if force {
		l, ok, err := lock.TryAcquire(m.CommitLockPath(rec.Slug))
		if err != nil || !ok {
			return nil, nil
		}
		return l, nil
	}
	l, err := m.LockCommits(ctx, rec.Slug)
	if err != nil {
		return nil, exitcode.RefusedAs(exitcode.KindBusy, "task %q is being committed in or synced: wait for that to finish, then run git wt rm %s again (%v)", rec.Task, text.ShellQuote(rec.Task), err)
	}
	return l, nil
}

// deleteBranch deletes a branch if it still points at sha (a branch that
// moved since it was read keeps the commits made on it); one that is
// gone already is no error.
func (m *Remover) deleteBranch(ctx context.Context, branch, sha string) error {
	err := m.Git.DeleteRef(ctx, m.Repo.MainDir, task.BranchRef(branch), sha)
	if errors.Is(err, git.ErrStale) {
		if now, rerr := m.Git.ObjectIDs(ctx, m.Repo.MainDir, task.BranchRef(branch)); rerr == nil && len(now) == 1 && now[0] == "" {
			return nil
		}
		return fmt.Errorf("it moved since rm read it at %s", sha)
	}
	return err
}

// branchDeleted finishes a branch deletion made with update-ref: like
// `git branch -D`, it drops the branch's config section (an upstream set
// by git wt push). And while another git packs refs (git gc, pack-refs), a
// deletion can be undone by a packing that read the branch just before:
// once no packing runs, the branch is looked up again (one ref read:
// loose, then packed, which sees no such window) and deleted again if it
// came back.
func (m *Remover) branchDeleted(ctx context.Context, branch, sha string) {
	if m.Settings.HasSection("branch." + branch) {
		m.Git.Config().RemoveSection(ctx, m.Repo.MainDir, "branch."+branch)
	}
	m.waitForPacking()
	if exists, err := m.Git.History().RefExists(ctx, m.Repo.MainDir, task.BranchRef(branch)); exists || err != nil {
		if err := m.deleteBranch(ctx, branch, sha); err != nil {
			m.Warn("branch %s came back while another git packed refs, and could not be deleted: %v", branch, err)
		}
	}
}

// waitForPacking waits (a little) while another git holds packed-refs.lock:
// a packing that started before our deletion commits before that lock is
// let go, so a branch it brought back is visible once the lock is gone.
func (m *Remover) waitForPacking() {
	lock := filepath.Join(m.Repo.CommonDir, "packed-refs.lock")
	for i := 0; i < 100; i++ {
		if _, err := os.Lstat(lock); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deleteRecord deletes a task's record, reading it again if it changed
// since (a concurrent lock or PR update) as long as it is the same task.
func (m *Remover) deleteRecord(ctx context.Context, e *record.Entry) error {
	err := m.Store.Delete(ctx, e.Slug, e.OID)
	if err == nil {
		return nil
	}
	fresh := *e
	if rerr := m.Reload(ctx, &fresh); rerr != nil {
		if exitcode.Of(rerr) == exitcode.NotFound {
			return nil // someone else removed it
		}
		return err
	}
	return m.Store.Delete(ctx, e.Slug, fresh.OID)
}

// removeUnknown handles rm of something that is not a task: nothing to do
// (exit 0), unless it names the main worktree or a worktree git-wt did not
// make, which rm refuses.
func (m *Remover) removeUnknown(ctx context.Context, arg string) *Removal {
	r := &Removal{Task: arg, WorktreeOutcome: NotFound}
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return r
	}
	abs, _ := filepath.Abs(arg)
	_, statErr := os.Lstat(arg)
	for i, wt := range wts {
		if !(statErr == nil && fsutil.Within(wt.Path, abs)) && wt.Branch != task.BranchRef(arg) {
			continue
		}
		r.Path, r.WorktreeOutcome = wt.Path, KeptNotOurs
		if i == 0 {
			r.Err = exitcode.RefusedAs(exitcode.KindMainWorktree, "%s is the main worktree: git-wt never removes it", wt.Path)
		} else {
			r.Err = exitcode.RefusedAs(exitcode.KindNotFound, "%s is not a git-wt task (it has no record): remove it with git worktree remove, or adopt it with git wt doctor --fix", wt.Path)
		}
	}
	return r
}

// RemoveForRepair removes an orphaned task. Branches with commits found
// nowhere else are always kept: repair never loses commits.
func (m *Remover) RemoveForRepair(ctx context.Context, e *record.Entry, force bool) error {
	r := m.RemoveEntry(ctx, e, RemoveOptions{Force: force, KeepUnmerged: true, Why: "an orphan's removal with --force (gc, doctor --fix)"})
	if r.Err != nil {
		return r.Err
	}
	if r.BranchOutcome == KeptUnmerged {
		m.Warn("kept branch %s: %d %s not merged", r.Branch, r.Unmerged, text.Plural(r.Unmerged, "commit", "commits"))
	}
	return nil
}
