package workflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// syncStep is the sync of one task's branch, planned then made.
type syncStep struct {
	rec      *record.Record
	mode     SyncMode
	how      string
	from, to string // the branch's tip now, and after ("" until made)
	base     string // full ref (or commit) of the base synced with
	baseTip  string
	upstream string // the commits upstream..from are the task's own
	behind   int
}

// plan decides how the task at tip comes up to baseTip: a fast-forward
// when it has no commits of its own, else a rebase or a merge (SPEC §12:
// merge when others may have the branch).
func (s *syncRun) plan(ctx context.Context, rec *record.Record, tip, base, baseTip string) (*syncStep, error) {
	step := &syncStep{rec: rec, mode: s.o.Mode, from: tip, base: base, baseTip: baseTip}
	if step.mode == SyncAuto {
		pushed, err := s.othersMayHave(ctx, rec)
		if err != nil {
			return nil, err
		}
		step.mode = SyncRebase
		if pushed {
			step.mode = SyncMerge
		}
	}
	// The count and the fork point each walk the base's new commits (a
	// few hundred milliseconds after a move of a thousand): side by side.
	behind := async.Start(func() (int, error) {
		_, n, err := s.m.AheadBehind(ctx, rec.Branch, baseTip)
		return n, err
	})
	var err error
	step.upstream, err = s.forkPoint(ctx, rec, tip, baseTip)
	n, berr := behind.Get()
	if err = cmp.Or(berr, err); err != nil {
		return nil, err
	}
	step.behind = n
	step.how = SyncHowRebase
	if step.mode == SyncMerge {
		step.how = SyncHowMerge
	}
	ff := step.upstream == tip
	if !ff && step.mode == SyncMerge {
		if ff, err = s.m.Git.History().IsAncestor(ctx, s.m.Repo.MainDir, tip, baseTip); err != nil {
			return nil, err
		}
	}
	if ff {
		step.how, step.to = SyncHowFastForward, baseTip
	}
	return step, nil
}

// othersMayHave reports whether the task's branch may be in other hands:
// it has an upstream, a remote-tracking branch of its name exists, or the
// task has a pull request. Those are merged, never rewritten.
func (s *syncRun) othersMayHave(ctx context.Context, rec *record.Record) (bool, error) {
	if rec.PR != nil {
		return true, nil
	}
	if s.pushed == nil {
		tracking, withUpstream, err := s.m.Git.RemoteBranches(ctx, s.m.Repo.MainDir)
		if err != nil {
			return false, err
		}
		s.pushed = withUpstream
		for ref := range s.byRef {
			for _, t := range tracking {
				if strings.HasSuffix(t, "/"+strings.TrimPrefix(ref, "refs/heads/")) {
					s.pushed[ref] = true
				}
			}
		}
	}
	return s.pushed[task.BranchRef(rec.Branch)], nil
}

// forkPoint is where the task's own commits begin: the recorded base_sha,
// which survives the parent's rewrite or squash-merge (rebase --onto
// <base tip> <base_sha>), unless the base was merged into the branch
// since, which moves the fork point up to the merge base.
func (s *syncRun) forkPoint(ctx context.Context, rec *record.Record, tip, baseTip string) (string, error) {
	h, dir := s.m.Git.History(), s.m.Repo.MainDir
	mb, err := h.MergeBase(ctx, dir, tip, baseTip)
	if err != nil || rec.BaseSHA == "" {
		return mb, err
	}
	if ok, err := h.IsAncestor(ctx, dir, rec.BaseSHA, mb); err != nil || ok {
		return mb, err
	}
	if ok, err := h.IsAncestor(ctx, dir, rec.BaseSHA, tip); err != nil || ok {
		return rec.BaseSHA, err
	}
	return mb, nil
}

// syncConflict is a sync that would conflict: nothing was changed.
type syncConflict struct {
	paths []string
	// abortedClean: git's rebase --abort left the temporary worktree
	// with no change and no operation under way, so it can serve the
	// next rebase.
	abortedClean bool
}

func (c *syncConflict) Error() string { return "conflicts in " + text.ListSome(c.paths, 10) }

// err is the conflict as the user reads it (exit 1, kind conflict).
func (c *syncConflict) err(rec *record.Record, base string) error {
	return &exitcode.Error{Code: exitcode.Failed, Kind: exitcode.KindConflict, Task: rec.Task, Path: rec.Path,
		Err: fmt.Errorf("syncing %s with %s: %v, so nothing was changed: merge %s into the task and resolve them there (git -C %s merge %s)",
			rec.Branch, base, c, base, text.ShellQuote(rec.Path), base)}
}

// makeTip makes the branch's new tip without touching the task's files:
// a merge commit from `git merge-tree`, or a rebase in a temporary
// detached worktree. A dry run looks for conflicts the same way and
// keeps no tip: git 2.39's merge-tree cannot replay commits, so a dry
// rebase is a real one in the temporary worktree, thrown away (its
// commits, on no ref, go with git's own gc).
func (m *Flow) makeTip(ctx context.Context, step *syncStep, dryRun bool, tmp *tempTree) error {
	if step.to != "" {
		return nil
	}
	dir := m.Repo.MainDir
	if step.mode == SyncMerge {
		tree, conflicts, err := m.Git.History().MergeTree(ctx, dir, step.from, step.baseTip)
		switch {
		case err != nil:
			return err
		case len(conflicts) > 0:
			return &syncConflict{paths: conflicts}
		case dryRun:
			return nil
		}
		msg := fmt.Sprintf("Merge %s into %s", describeBase(step.base), step.rec.Branch)
		step.to, err = m.Git.History().CommitTree(ctx, dir, tree, msg, step.from, step.baseTip)
		return err
	}
	return tmp.use(ctx, m, step.from, func(dir string) error {
		if err := m.Git.Index().RebaseOnto(ctx, dir, step.baseTip, step.upstream, step.from); err != nil {
			paths := m.Git.Index().UnmergedPaths(ctx, dir)
			m.Git.Index().Abort(ctx, dir, git.OpRebase)
			if len(paths) > 0 {
				return &syncConflict{paths: paths, abortedClean: m.cleanAfterAbort(ctx, dir)}
			}
			return exitcode.Failedf("rebasing %s onto %s failed, so nothing was changed: %v", step.rec.Branch, shortRef(step.base), err)
		}
		if dryRun {
			return nil
		}
		var err error
		step.to, err = m.Git.Index().Head(ctx, dir)
		return err
	})
}

// describeBase names a base as git's merge messages do.
func describeBase(base string) string {
	switch {
	case strings.HasPrefix(base, "refs/heads/"):
		return "branch '" + shortRef(base) + "'"
	case strings.HasPrefix(base, "refs/remotes/"):
		return "remote-tracking branch '" + shortRef(base) + "'"
	}
	return "commit '" + base + "'"
}

// applySync moves the task to its new tip, holding it in state syncing
// and its commit lock:
// the branch by compare-and-swap, then the files with a two-tree
// read-tree, which refuses rather than overwrite a change made meanwhile
// (the branch is then put back). The record's base follows. What it
// returns on failure is the task's outcome and why.
func (m *Flow) applySync(ctx context.Context, e *record.Entry, step *syncStep) (string, error) {
	rec := e.Record
	was := rec.State
	// git wt commit waits: between the branch's move and the files' it
	// would stage the old files on the new tip, undoing the sync.
	cl, err := m.commitLock(ctx, rec)
	if err != nil {
		return SkippedBusy, err
	}
	defer cl.Release()
	// No repository lock: the move is a compare-and-swap that the
	// lifecycle checks (rm, doctor and another sync that moved the task
	// first make it fail), as merge's is; under a fleet's load the lock
	// was most of what a sync waited for.
	err = m.Transition(ctx, e, record.Syncing, func(r *record.Record) {
		r.Sync = &record.SyncStep{From: step.from, To: step.to, Base: step.base, BaseSHA: step.baseTip, Was: was}
	})
	if err != nil {
		return SkippedBusy, err
	}
	task.Checkpoint(ctx, "sync:syncing")
	ctx = context.WithoutCancel(ctx) // once begun, a step ends: then it is put back or kept whole
	// A step may outlast wt.orphanGrace (SPEC §15): its lease ends before
	// endSync writes the record.
	stop := m.Renew(e)
	defer stop()
	ref, dir := task.BranchRef(rec.Branch), m.Repo.MainDir
	err = m.Git.MoveBranch(ctx, dir, ref, step.to, step.from, fmt.Sprintf("git wt sync: %s onto %s", step.how, shortRef(step.base)))
	if err != nil {
		stop()
		m.endSync(e, nil)
		if errors.Is(err, git.ErrStale) {
			return SkippedDirty, m.Refuse(rec, "dirty", "%s moved while it was synced: nothing was changed; sync it again", rec.Branch)
		}
		return SyncFailed, err
	}
	task.Checkpoint(ctx, "sync:moved")
	if outcome, err := m.moveFiles(ctx, rec, step); err != nil {
		if berr := m.Git.MoveBranch(ctx, dir, ref, step.from, step.to, "git wt sync: put back"); berr != nil {
			return SyncFailed, exitcode.Failedf("syncing %s: its files could not follow (%v), nor could the branch be put back (%v): run git wt doctor --fix", rec.Branch, err, berr)
		}
		stop()
		m.endSync(e, nil)
		return outcome, err
	}
	stop()
	m.endSync(e, step)
	return "", nil
}

// moveFiles brings the task's files from the old tip to the new, once
// the branch has moved; on failure the caller puts the branch back. It
// looks again, under the commit lock, for tracked files deleted since
// the dirty check: read-tree would write them again. A read-tree that
// failed while writing (a full disk) has its files put back.
func (m *Flow) moveFiles(ctx context.Context, rec *record.Record, step *syncStep) (string, error) {
	ix := m.Git.Index()
	gone, err := ix.Deleted(ctx, rec.Path)
	if err != nil {
		return SkippedDirty, m.Refuse(rec, "status-failed", "cannot read the status of %s (%v), so it counts as dirty: nothing was changed", rec.Path, err)
	}
	if len(gone) > 0 {
		return SkippedDirty, m.Refuse(rec, "dirty", "%s changed while it was synced (%s deleted), so nothing was changed: commit, then sync again", rec.Path, text.ListSome(gone, 5))
	}
	err = ix.MoveFiles(ctx, rec.Path, step.from, step.to)
	if err == nil {
		return "", nil
	}
	back, perr := m.putBackFiles(ctx, rec.Path, step.from, step.to)
	switch {
	case perr != nil:
		return SyncFailed, exitcode.Failedf("syncing %s: its files could not follow (%v), and putting them back failed (%v): the branch was put back; see git -C %s status", rec.Branch, err, perr, text.ShellQuote(rec.Path))
	case !back.wrote(): // git refused before it wrote a file
		return SkippedDirty, m.Refuse(rec, "dirty", "%s changed while it was synced, so nothing was changed: %v", rec.Path, err)
	case len(back.left) > 0:
		return SyncFailed, exitcode.Failedf("syncing %s: writing its files failed (%v): the branch was put back, but %s", rec.Branch, err, back.say(rec))
	}
	return SyncFailed, exitcode.Failedf("syncing %s: writing its files failed (%v): the branch and %s, so nothing was changed; free some space, then sync again", rec.Branch, err, back.say(rec))
}

// endSync ends the task's syncing state under the lock: back to the state
// it had, with the new base when the sync was done (step), as it was when
// not.
func (m *Flow) endSync(e *record.Entry, step *syncStep) {
	ctx, cancel := context.WithTimeout(context.Background(), task.RollbackTimeout)
	defer cancel()
	if err := m.EndSync(ctx, e, step != nil); err != nil {
		m.Warn("could not end the sync of task %q: %v (run git wt doctor)", e.Record.Task, err)
	}
}

// cleanAfterAbort reports whether the temporary worktree at dir is clean
// after a rebase --abort: no change, no untracked file, no rebase left
// under way.
func (m *Flow) cleanAfterAbort(ctx context.Context, dir string) bool {
	st, err := m.Git.Status(ctx, dir, git.StatusOptions{Untracked: "all"})
	return err == nil && len(st.Entries) == 0 && m.Git.InProgress(ctx, dir) == ""
}

// tempTree is the temporary detached worktree a sync rebases in, made at
// its first rebase and kept for the next: git goes from the last tip made
// straight to the next base, so after a big move of the base each task's
// rebase writes only its own files, not the whole checkout and the
// base's changes again. A conflict that git's rebase --abort took back
// leaves it clean, so it is kept too (under a fleet's load, a checkout
// of the whole base after each conflict made a sync --all run for
// minutes); any other failure leaves it to be removed and made anew at
// the next.
type tempTree struct {
	dir  string
	drop func()
}

// use runs fn in the temporary worktree, making it (detached at commit)
// if there is none.
func (t *tempTree) use(ctx context.Context, m *Flow, commit string, fn func(dir string) error) error {
	if t.dir == "" {
		dir, drop, err := m.tempWorktree(ctx, commit, m.addDetached(ctx, commit))
		if err != nil {
			drop()
			return err
		}
		t.dir, t.drop = dir, drop
	}
	err := fn(t.dir)
	var conflict *syncConflict
	if err != nil && !(errors.As(err, &conflict) && conflict.abortedClean) {
		t.close()
	}
	return err
}

// close removes the temporary worktree, if there is one.
func (t *tempTree) close() {
	if t.dir != "" {
		t.drop()
		t.dir, t.drop = "", nil
	}
}
