package workflow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// leftChanges is the error of a failed merge whose changes git-wt could
// not take back: they are left for the user to look at.
type leftChanges struct{ error }

func (l leftChanges) Unwrap() error { return l.error }

// applyMerge makes the merge the plan describes and returns how it went
// and where the base points now. A failure takes back what it began. ctx
// is not cancelled by an interrupt: a git step, once begun, ends.
func (m *Flow) applyMerge(ctx context.Context, p *mergePlan) (how, commit string, err error) {
	if p.mode == MergeRebase && !p.ff {
		if p.taskTip, err = m.rebase(ctx, p); err != nil {
			return "", "", err
		}
		p.ff = true
	}
	switch {
	case p.baseDir != "":
		how, commit, err = m.mergeIn(ctx, p.baseDir, p)
	case p.fastForward() || m.Repo.Version.AtLeast(git.MergeTreeVersion):
		how, commit, err = m.mergeWithoutCheckout(ctx, p)
	default:
		err = m.withCheckout(ctx, p.intoName, func(dir string) (err error) {
			how, commit, err = m.mergeIn(ctx, dir, p)
			return err
		})
	}
	if p.mode == MergeRebase && how == HowFastForward {
		how = HowRebase
	}
	return how, commit, err
}

// mergeIn merges the task's branch in the worktree at dir, which has the
// base checked out: `git merge`, as the user would type it there.
func (m *Flow) mergeIn(ctx context.Context, dir string, p *mergePlan) (how, commit string, err error) {
	mode, how := git.MergeNoFF, HowMerge
	switch {
	case p.mode == MergeSquash:
		mode, how = git.MergeSquash, HowSquash
	case p.fastForward():
		mode, how = git.MergeFFOnly, HowFastForward
	}
	err = m.Git.Index().Merge(ctx, dir, task.BranchRef(p.rec.Branch), mode, p.message)
	if err == nil && how == HowSquash {
		how, err = m.commitSquash(ctx, dir, p)
	}
	if err != nil {
		return "", "", m.takeBack(ctx, dir, p, "merging "+p.rec.Branch+" into "+p.intoName, err)
	}
	commit, err = m.Git.Index().Head(ctx, dir)
	return how, commit, err
}

// commitSquash commits what `git merge --squash` staged; nothing staged
// means the task's changes are all in the base already.
func (m *Flow) commitSquash(ctx context.Context, dir string, p *mergePlan) (string, error) {
	staged, err := m.Git.Index().HasStaged(ctx, dir)
	if err == nil && staged {
		if err = m.Git.Index().CommitStaged(ctx, dir, p.message); err == nil {
			return HowSquash, nil
		}
	}
	// Nothing to commit, or a commit hook said no: drop what the squash
	// staged and the SQUASH_MSG it left, which the user's next commit
	// would pick up.
	m.Git.Index().Abort(ctx, dir, "")
	if err != nil {
		return "", err
	}
	return HowAlreadyMerged, nil
}

// rebase rebases the task's branch onto the base where it is checked out
// (or in a temporary worktree) and returns its new tip.
func (m *Flow) rebase(ctx context.Context, p *mergePlan) (string, error) {
	var tip string
	in := func(dir string) error {
		if err := m.Git.Index().Rebase(ctx, dir, p.into); err != nil {
			return m.takeBack(ctx, dir, p, "rebasing "+p.rec.Branch+" onto "+p.intoName, err)
		}
		var err error
		tip, err = m.Git.Index().Head(ctx, dir)
		return err
	}
	var err error
	if p.taskDir != "" {
		err = in(p.taskDir)
	} else {
		err = m.withCheckout(ctx, p.rec.Branch, in)
	}
	return tip, err
}

// mergeWithoutCheckout merges into a base that no worktree has checked
// out: it writes the merge commit from `git merge-tree` (a fast-forward
// needs none) and moves the branch with a compare-and-swap, so no checkout
// is touched and a concurrent change of the base is never overwritten.
func (m *Flow) mergeWithoutCheckout(ctx context.Context, p *mergePlan) (how, commit string, err error) {
	how, commit = HowFastForward, p.taskTip
	if !p.fastForward() {
		if how, commit, err = m.mergeCommit(ctx, p); err != nil || how == HowAlreadyMerged {
			return how, commit, err
		}
	}
	err = m.Git.MoveBranch(ctx, m.Repo.MainDir, p.into, commit, p.baseTip, "git wt merge: "+how+" "+p.rec.Branch)
	if errors.Is(err, git.ErrStale) {
		return "", "", exitcode.Failedf("%s moved while the merge was made, so nothing was changed: run git wt merge %s again", p.intoName, text.ShellQuote(p.rec.Task))
	}
	return how, commit, err
}

// mergeCommit writes the merge or squash commit of the task onto the base
// without a worktree.
func (m *Flow) mergeCommit(ctx context.Context, p *mergePlan) (how, commit string, err error) {
	dir := m.Repo.MainDir
	tree, conflicts, err := m.Git.History().MergeTree(ctx, dir, p.baseTip, p.taskTip)
	if err != nil {
		return "", "", err
	}
	if len(conflicts) > 0 {
		return "", "", m.conflictError(p, "merging "+p.rec.Branch+" into "+p.intoName, conflicts)
	}
	parents, how := []string{p.baseTip}, HowSquash
	if p.mode == MergeSquash {
		baseTree, err := m.Git.History().Tree(ctx, dir, p.baseTip)
		if err != nil || baseTree == tree {
			return HowAlreadyMerged, p.baseTip, err
		}
	} else {
		parents, how = append(parents, p.taskTip), HowMerge
	}
	commit, err = m.Git.History().CommitTree(ctx, dir, tree, p.message, parents...)
	return how, commit, err
}

// takeBack undoes what a failed merge or rebase left in the worktree at
// dir, which was clean when it began, and returns the error to report:
// the conflicting files, or git's own complaint. It resets only what git
// wrote for this merge: git's own abort when git recorded the operation,
// else the index only when the merge got as far as conflicts or was
// interrupted. What it cannot take back stays for the user to look at.
func (m *Flow) takeBack(ctx context.Context, dir string, p *mergePlan, what string, cause error) error {
	conflicts := m.Git.Index().UnmergedPaths(ctx, dir)
	if op := m.Git.InProgress(ctx, dir); op == git.OpMerge || op == git.OpRebase || len(conflicts) > 0 || p.interrupted(cause) {
		m.Git.Index().Abort(ctx, dir, op)
	}
	if n, err := m.DirtyCount(ctx, dir); err != nil || n > 0 || m.Git.InProgress(ctx, dir) != "" {
		return leftChanges{exitcode.Failedf("%s failed (%v) and left changes in %s that git-wt did not discard: look at them with git -C %s status", what, cause, dir, text.ShellQuote(dir))}
	}
	if len(conflicts) > 0 {
		return m.conflictError(p, what, conflicts)
	}
	return exitcode.Failedf("%s failed, so nothing was changed: %v", what, cause)
}

// conflictError says which files conflict and how to go on.
func (m *Flow) conflictError(p *mergePlan, what string, files []string) error {
	list := text.ListSome(files, 10)
	return &exitcode.Error{Code: exitcode.Failed, Kind: exitcode.KindConflict, Task: p.rec.Task, Path: p.rec.Path, Err: fmt.Errorf("%s conflicts in %s, so nothing was changed: merge %s into the task and resolve them there (git -C %s merge %s), then run git wt merge %s again",
		what, list, p.intoName, text.ShellQuote(p.rec.Path), p.intoName, text.ShellQuote(p.rec.Task))}
}

// withCheckout runs fn in a temporary worktree that has branch checked
// out: for a merge into a branch that no worktree has checked out on a git
// without `merge-tree --write-tree`, and for a rebase of a task whose
// worktree is gone.
func (m *Flow) withCheckout(ctx context.Context, branch string, fn func(dir string) error) error {
	add := func(dir string) error {
		// AddWorktree and DropWorktree take the repository lock themselves.
		if err := m.AddWorktree(ctx, &record.Record{Branch: branch, Path: dir}, "", &lifecycle.Undo{}, false); err != nil {
			return err
		}
		return m.CheckOut(ctx, dir, branch)
	}
	return m.inTempWorktree(ctx, branch, add, fn)
}

// addDetached adds a worktree detached at commit, its files checked out:
// where a sync rebases, which must not touch the task's own files.
func (m *Flow) addDetached(ctx context.Context, commit string) func(dir string) error {
	return func(dir string) error {
		if err := m.AddWorktree(ctx, &record.Record{Path: dir}, commit, &lifecycle.Undo{}, true); err != nil {
			return err
		}
		return m.Git.CheckOutTree(ctx, dir, commit)
	}
}

// inTempWorktree makes a worktree with add in this repository's merge
// folder of the base dir (place.OwnFolder),
// named for this process (doctor removes one whose process died), runs
// fn in it, and removes it.
func (m *Flow) inTempWorktree(ctx context.Context, what string, add, fn func(dir string) error) error {
	dir, drop, err := m.tempWorktree(ctx, what, add)
	defer drop()
	if err != nil {
		return err
	}
	return fn(dir)
}

// tempWorktree makes the worktree of inTempWorktree and returns it, with
// the function that removes it (to be called even when making it failed).
func (m *Flow) tempWorktree(ctx context.Context, what string, add func(dir string) error) (string, func(), error) {
	baseDir, err := m.Place.BaseDir()
	if err != nil {
		return "", func() {}, err
	}
	// The pid alone is no name: in PID namespaces of their own, two merges
	// may both be process 1.
	dir := filepath.Join(m.Place.OwnFolder(baseDir, place.MergeTmpDir), fmt.Sprintf("merge-%d-%08x", os.Getpid(), rand.Uint32()))
	// The stamp beside it lets doctor prove this process dead (SPEC §15);
	// doctor also removes a stamp whose merge died before its worktree
	// was made.
	stamp := place.StampOf(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o777); err == nil {
		proc.WriteStamp(stamp)
	}
	// One that cannot see this process judges it by the stamp's time: it
	// is renewed while the worktree is in use (a lease, as a record's).
	stop := task.RenewStamp(stamp, m.Settings.OrphanGrace)
	err = add(dir)
	drop := func() {
		stop()
		if err := m.DropWorktree(ctx, dir); err != nil {
			m.Warn("could not remove the temporary worktree %s: %v", dir, err)
		} else {
			os.Remove(stamp)
		}
		os.Remove(filepath.Dir(dir)) // only if empty
	}
	if err != nil {
		return "", drop, exitcode.Failedf("cannot make a temporary worktree for %s at %s: %v", what, dir, err)
	}
	return dir, drop, nil
}
