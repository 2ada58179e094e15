package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// AddWorktree registers the worktree for the task's branch, detached at
// startSHA and not checked out (CheckOut does both after the lock is
// released), creating the branch at startSHA if it does not exist
// (branchMade: this process made it, with the record). It takes the lock
// only around git's admin step, which git 2.39 cannot run twice at once.
func (m *Handler) AddWorktree(ctx context.Context, rec *record.Record, startSHA string, u *Undo, branchMade bool) error {
	existed := false
	if !branchMade { // one this process made has nobody else's checkout
		var err error
		if existed, err = m.ensureBranch(ctx, rec, startSHA, u); err != nil {
			return err
		}
	}
	task.Checkpoint(ctx, "new:branch-seen")
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if existed {
		// Under the lock, so that no other new checks it out meanwhile.
		bs, err := m.InspectBranch(ctx, rec.Branch)
		if err != nil {
			return err
		}
		if !bs.Exists {
			// Deleted since it was seen (by a person, or by a repair
			// that found it leftover before this task's record was
			// written): a worktree on it would have a HEAD naming nothing.
			return exitcode.RefusedAs(exitcode.KindConflict, "branch %s was deleted while task %q was being created on it: run git wt new again", rec.Branch, rec.Task)
		}
		if bs.CheckedOut != "" {
			return exitcode.RefusedAs(exitcode.KindConflict, "branch %s is checked out in %s: a branch can be checked out in one worktree only", rec.Branch, bs.CheckedOut)
		}
		startSHA = bs.SHA
	}
	return m.addLocked(ctx, l, rec, startSHA, u)
}

// ensureBranch creates the task's branch at startSHA unless it exists,
// and reports whether it existed (made meanwhile by another process
// counts: it is checked like any existing branch).
func (m *Handler) ensureBranch(ctx context.Context, rec *record.Record, startSHA string, u *Undo) (existed bool, err error) {
	bs, err := m.InspectBranch(ctx, rec.Branch)
	if err != nil || bs.Exists {
		return bs.Exists, err
	}
	err = m.Git.UpdateRef(ctx, m.Repo.MainDir, task.BranchRef(rec.Branch), startSHA, "")
	switch {
	case err == nil:
		rec.SetBranchCreated(true) // saved with the next state change
		// Undo runs last-in first-out: the worktree goes before its branch.
		u.push(func(ctx context.Context) error { return m.dropNewBranch(ctx, rec.Branch, startSHA) })
		return false, nil
	case errors.Is(err, git.ErrStale):
		return true, nil
	}
	return false, fmt.Errorf("cannot create branch %s: %w", rec.Branch, err)
}

// addLocked registers the worktree, detached at startSHA, under the lock
// the caller holds (held).
func (m *Handler) addLocked(ctx context.Context, held *lock.Lock, rec *record.Record, startSHA string, u *Undo) error {
	// What stands at the path already (a folder someone filled since it
	// was checked) is not git-wt's: git refuses it, and nothing undoes it.
	occupied := fsutil.HoldsEntries(rec.Path)
	err := m.Git.AddWorktree(ctx, m.Repo.MainDir, rec.Path, startSHA)
	// Undo even after a failure: git may have made the folder or the
	// admin entry before it failed.
	if !occupied || err == nil {
		u.push(func(ctx context.Context) error { return m.DropWorktree(ctx, rec.Path) })
	}
	if err != nil {
		return fmt.Errorf("cannot add the worktree %s: %w", rec.Path, err)
	}
	return nil
}

// CheckOut puts the worktree at dir that addWorktree registered on branch
// and checks the branch out, overwriting whatever an interrupted checkout
// left there. The branch is always named by its full ref: `git worktree
// add BRANCH` would look the short name up, and "wt/<slug>" resolves to
// a tag or an earlier git-wt's record refs/wt/<slug> before
// refs/heads/wt/<slug>. HEAD and the
// files are separate steps that touch separate files (HEAD, index), so
// they run side by side: read-tree, unlike reset, leaves HEAD alone.
func (m *Handler) CheckOut(ctx context.Context, dir, branch string) error {
	ref := task.BranchRef(branch)
	head := make(chan error, 1)
	go func() { head <- m.Git.PointHead(ctx, dir, ref) }()
	err := m.Git.CheckOutTree(ctx, dir, ref)
	if herr := <-head; err == nil {
		err = herr
	}
	if err != nil {
		return fmt.Errorf("cannot check out %s in %s: %w", branch, dir, err)
	}
	return nil
}
