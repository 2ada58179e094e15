package lifecycle

import (
	"context"
	"errors"
	"os"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// resume takes over a task whose record exists but whose creation did not
// finish (its creator died) or whose directory has gone: it makes what is
// missing, under the lock, and finishes the job.
func (m *Handler) resume(ctx context.Context, e *record.Entry, o CreateOptions) (c *Created, err error) {
	if !m.InBaseDir(e.Record.Path) {
		// A record is no proof (SPEC §19): git-wt makes worktrees in
		// its base dir only, and a path elsewhere was written by hand.
		return nil, exitcode.RefusedAs(exitcode.KindUnsafeInput, "the record of task %q names %s, outside the base dir %s, where git-wt makes no worktree (it may have been edited by hand): remove the task with git wt rm %s, then git wt new again",
			e.Record.Task, e.Record.Path, m.Settings.BaseDir, text.ShellQuote(e.Record.Task))
	}
	if err := m.refuseOthersWorktree(ctx, e.Record); err != nil {
		return nil, err
	}
	u := Undo{task: e.Record}
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return nil, err
	}
	if len(fresh) != 1 || fresh[0].OID != e.OID {
		return nil, errBusy // changed since we looked: look again
	}
	rec := e.Record
	// Writing our name into the record (compare-and-swap) claims the task:
	// other processes now see a live creator and wait. A resumed creation
	// is a creation again, whatever state it stopped in.
	if err := rec.Move(record.Creating, task.Self()); err != nil {
		return nil, task.NotNow(rec, record.Creating, err)
	}
	if err := m.Save(ctx, e); err != nil {
		return nil, busyIfStale(err)
	}
	u.entry = e
	m.EndLeftoverInit(rec) // the dead creator's init, if it outlived it
	// What a killed git left: its index.lock, git worktree add's lock.
	m.ClearStaleLocks(rec)
	if err := m.finishKilledAdd(ctx, rec); err != nil {
		return nil, err
	}
	m.ClearInitializingLock(ctx, rec)
	_, statErr := os.Lstat(rec.Path)
	registered := m.Registered(ctx, rec.Path)
	if statErr == nil && !registered {
		if fsutil.HoldsEntries(rec.Path) {
			return nil, exitcode.RefusedAs(exitcode.KindConflict, "%s exists but is not a worktree of this repository: move it away, then run git wt new again", rec.Path)
		}
	}
	if statErr != nil || !registered {
		// Drop what is left (git's stale admin entry, an empty folder),
		// then add the worktree again from the branch or the base commit.
		if err := m.DropWorktree(ctx, rec.Path); err != nil {
			return nil, err
		}
		if err := m.AddWorktree(ctx, rec, rec.BaseSHA, &u, false); err != nil {
			return nil, err
		}
	}
	if err = m.finish(ctx, e, o, false); err != nil {
		if errors.Is(err, setup.ErrInitFailed) {
			u = Undo{}
		}
		return nil, err
	}
	m.LogEvent(rec, "created", "resumed an unfinished creation")
	return &Created{Record: rec}, nil
}

// refuseOthersWorktree refuses (exit 3, before anything is touched) to
// resume a creation whose record names a worktree that is not the one it
// was making: another record names the path, or git lists a worktree
// there with a branch checked out other than the task's (a creation's is
// detached until it points HEAD at the task's branch). Finishing would
// point that worktree's HEAD at this task's branch.
func (m *Handler) refuseOthersWorktree(ctx context.Context, rec *record.Record) error {
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return err
	}
	wt := task.FindWorktree(wts, rec.Path)
	why, err := m.OtherTasksWorktree(ctx, rec, wt)
	if err != nil {
		return err
	}
	if why == "" && wt != nil && wt.Branch != "" && wt.Branch != task.BranchRef(rec.Branch) {
		why = "it has " + wt.Branch + " checked out"
	}
	if why == "" {
		return nil
	}
	return exitcode.RefusedAs(exitcode.KindUnsafeInput, "the record of task %q names %s, which is not the worktree its creation was making (%s; records can be edited by hand): if you did not write it, delete it with git update-ref -d %s",
		rec.Task, rec.Path, why, record.Ref(rec.Slug))
}
