package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/git-wt/git-wt/internal/git"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Undo collects the steps that take back what a failed creation made.
type Undo struct {
	steps []func(context.Context) error
	// task is what the event log names the rollback after (git wt log T
	// must find it), nil for none.
	task *record.Record
	// entry is the creation's record once this process has written it:
	// the rollback drops nothing unless the task is still this process's
	// creation (SPEC §15).
	entry *record.Entry
}

func (u *Undo) push(step func(context.Context) error) { u.steps = append(u.steps, step) }

// run takes the steps back, newest first. Steps that touch git's admin
// entries take the lock themselves, so the caller must not hold it.
func (u *Undo) run(m *Handler, reason string) {
	if len(u.steps) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), task.RollbackTimeout)
	defer cancel()
	if u.entry != nil {
		if err := m.holdForRollback(ctx, u.entry); err != nil {
			m.Warn("did not roll back the creation of task %q: %v", u.entry.Record.Task, err)
			m.LogEvent(u.task, "rollback-skipped", err.Error())
			return
		}
	}
	for i := len(u.steps) - 1; i >= 0; i-- {
		if err := u.steps[i](ctx); err != nil {
			m.Warn("rollback: %v (run git wt doctor --fix)", err)
		}
	}
	m.LogEvent(u.task, "rolled-back", reason)
}

// holdForRollback makes sure the task is still this process's creation,
// and keeps it so while the rollback drops it: it moves the record to
// state removing, signed by this process, by a compare-and-swap on the
// record as just read. Another new then waits rather than resume it, and
// no repair claims it. A task that another process signed meanwhile (a
// second new resumed it, doctor marked it failed because an agent's file
// was in it) is not this process's to drop: an error, and nothing
// changes.
func (m *Handler) holdForRollback(ctx context.Context, e *record.Entry) error {
	me := task.Self()
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return err
	}
	if len(fresh) != 1 || fresh[0].Record == nil || fresh[0].Record.Path != e.Record.Path {
		return errors.New("its record is gone or replaced")
	}
	r := fresh[0].Record
	if (r.State != record.Creating && r.State != record.Initializing) || !r.Owner().SameProcess(me) {
		return fmt.Errorf("it is %s by process %d on %s now, which keeps it", r.State, r.CreatorPID, r.CreatorHost)
	}
	held := fresh[0]
	// Should this process die now, the removal's repair keeps what the
	// checkout did not write, as failed (see removal's priorOfRemoval).
	held.Record.Init.Status, held.Record.Init.Error = record.InitFailed, "its creation failed and was being rolled back"
	if err := held.Record.Move(record.Removing, me); err != nil {
		return err
	}
	if err := m.Save(ctx, &held); err != nil {
		if errors.Is(err, git.ErrStale) {
			return errors.New("another process changed it meanwhile, and keeps it")
		}
		return err
	}
	*e = held
	return nil
}

// PruneEntry drops git's admin entry of a worktree whose folder is gone
// (doctor's prunable-entry), if that is still so under the lock: the
// diagnosis read the entry earlier, and a task made again at that path
// since (new adds its worktree under the lock) owns the entry and the
// folder now, which are left alone (ErrMovedOn). It deletes no file.
func (m *Handler) PruneEntry(ctx context.Context, path string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if _, err := os.Lstat(path); err == nil {
		return task.ErrMovedOn
	}
	if !m.Registered(ctx, path) {
		return nil // gone already
	}
	return m.Git.RemoveWorktree(ctx, m.Repo.MainDir, path)
}

// dropNewBranch deletes a branch this process created, if it still points
// where it was created (nobody committed to it).
func (m *Handler) dropNewBranch(ctx context.Context, branch, sha string) error {
	bs, err := m.InspectBranch(ctx, branch)
	if err != nil || !bs.Exists || bs.SHA != sha {
		return err
	}
	return m.Git.DeleteRef(ctx, m.Repo.MainDir, task.BranchRef(branch), sha)
}

// dropRecord deletes the record of a creation that failed.
// An interrupt reaches the gits this process runs too: a record write
// killed by it may leave the ref's lock file behind.
func (m *Handler) dropRecord(ctx context.Context, e *record.Entry) error {
	return m.PastStaleLock(e.Ref(), func() error { return m.Store.Delete(ctx, e.Slug, e.OID) })
}
