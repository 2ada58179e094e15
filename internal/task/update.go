package task

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// Update applies change to the task's record and saves it with
// compare-and-swap. When another process changed the record since it was
// read (a PR refresh, a lock), it reads the record again and applies
// change to the fresh copy, as long as it is still the same task. A change
// that returns an error saves nothing.
func (m *Manager) Update(ctx context.Context, e *record.Entry, change func(*record.Record) error) error {
	for attempt := 0; ; attempt++ {
		if err := change(e.Record); err != nil {
			return err
		}
		err := m.Save(ctx, e)
		if !errors.Is(err, git.ErrStale) || attempt >= MaxRaces {
			return err
		}
		if err := m.Reload(ctx, e); err != nil {
			return err
		}
	}
}

// Transition moves the task to state to, signed by this process, and
// applies also (when set) in the same compare-and-swap write. It is the
// only way a command changes a task's state: record.Move refuses a move
// the lifecycle does not allow, checked again on the fresh record when
// another process changed it meanwhile.
//
// A record that changed meanwhile is another process's work when that
// process signed it in the middle of a change of its own (creating,
// initializing, removing, merging, syncing): it is refused as busy, never
// taken over. The decision to move the task was made on the record read
// before, not on that one (a git wt init that read the task active must
// not sign a creation that began since).
func (m *Manager) Transition(ctx context.Context, e *record.Entry, to record.State, also func(*record.Record)) error {
	me := Self()
	examined := e.Record.Owner()
	return m.Update(ctx, e, func(r *record.Record) error {
		if o := r.Owner(); o != examined && o != me && r.State.Underway() {
			return NotNow(r, to, fmt.Errorf("%w: process %d signed it meanwhile", record.ErrIllegalMove, o.PID))
		}
		if err := r.Move(to, me); err != nil {
			return NotNow(r, to, err)
		}
		if also != nil {
			also(r)
		}
		return nil
	})
}

// NotNow turns a move the task's present state does not allow into a
// refusal (exit 3, nothing changed) that says what to do: another process
// is working on the task, or its setup failed and waits for the user.
func NotNow(r *record.Record, to record.State, err error) error {
	if !errors.Is(err, record.ErrIllegalMove) {
		return err
	}
	if r.State == record.Failed {
		return exitcode.Refusedf("task %q cannot go to state %s: its setup failed; look at %s, then run git wt init %s, or git wt rm %s", r.Task, to, r.Path, r.Slug, r.Slug)
	}
	return exitcode.Refusedf("task %q cannot go to state %s: it is %s (process %d on %s); try again when that is done, or run git wt doctor if that process died", r.Task, to, r.State, r.CreatorPID, r.CreatorHost)
}

// Self is this process as a record's owner.
func Self() record.Owner {
	me := proc.Self()
	return record.Owner{PID: me.PID, Host: me.Host, Start: me.Start}
}

// Reload reads the task's record again: another process may have changed
// it, or removed the task, since it was read.
func (m *Manager) Reload(ctx context.Context, e *record.Entry) error {
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return err
	}
	if len(fresh) == 0 || fresh[0].Record == nil || fresh[0].Record.Path != e.Record.Path {
		return exitcode.NotFoundf("task %q was removed or replaced meanwhile (see git wt log %s)", e.Record.Task, e.Slug)
	}
	*e = fresh[0]
	return nil
}

// SetState moves the task to state on a context of its own: it also runs
// after an interrupt, to put back what the command had changed.
func (m *Manager) SetState(e *record.Entry, state record.State) {
	ctx, cancel := context.WithTimeout(context.Background(), RollbackTimeout)
	defer cancel()
	if err := m.Transition(ctx, e, state, nil); err != nil {
		m.Warn("could not set task %q back to state %s: %v (run git wt doctor)", e.Record.Task, state, err)
	}
}

// Save writes an updated record over the one read as e.OID.
//
// A lock file on the record's ref that a git killed in the middle of
// writing it left (a killed git wt init, say) would stop every later
// write until doctor ran: the writer deletes it, when no git of the
// repository can own it (the judgement doctor makes), and tries once more.
func (m *Manager) Save(ctx context.Context, e *record.Entry) error {
	return m.PastStaleLock(e.Ref(), func() error { return m.Store.Save(ctx, e) })
}

// PastStaleLock runs write, a write of ref; if it fails on the ref's lock
// file, and no git of the repository can own that lock (a git killed
// mid-write left it), the lock is deleted and write runs once more.
func (m *Manager) PastStaleLock(ref string, write func() error) error {
	err := write()
	if !git.IsLockError(err) {
		return err
	}
	lock := filepath.Join(m.Repo.CommonDir, filepath.FromSlash(ref)+".lock")
	if proc.RemoveStaleLock(lock, m.RepoDirs()...) != nil {
		return err
	}
	return write()
}

// RepoDirs are the folders where a git of this repository works: the
// main worktree, the base dir with the tasks, the git dir.
func (m *Manager) RepoDirs() []string {
	return []string{m.Repo.MainDir, m.Settings.BaseDir, m.Repo.CommonDir}
}

// Owner is the process that drives the task's current state change.
func Owner(rec *record.Record) proc.ID {
	return proc.ID{PID: rec.CreatorPID, Host: rec.CreatorHost, Start: rec.CreatorStart}
}

// MaxRaces bounds how often `new` starts over because another process
// created the same task between its look and its lock.
const MaxRaces = 10

// RollbackTimeout bounds a rollback. It runs on a fresh context: the
// command's own may be what was cancelled (Ctrl-C).
const RollbackTimeout = time.Minute

// PollInterval is how often `new` looks at a task another process is
// creating.
const PollInterval = 25 * time.Millisecond
