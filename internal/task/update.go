package task

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
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
// process signed it (neither the owner examined nor this process):
//   - this process was in the middle of an operation of its own (the
//     owner of a creation, say): it has lost the task — doctor marked it
//     failed, another new resumed it — and the move is refused with
//     ErrTakenOver;
//   - else, when the other process signed it in the middle of a change
//     of its own, the move is refused as busy, never taken over: the
//     decision to move the task was made on the record read before (a git
//     wt init that read the task active must not sign a creation that
//     began since).
func (m *Manager) Transition(ctx context.Context, e *record.Entry, to record.State, also func(*record.Record)) error {
	me := signer(ctx)
	examined := e.Record.Owner()
	mine := e.Record.State.InFlight() && examined.SameProcess(me)
	return m.Update(ctx, e, func(r *record.Record) error {
		if o := r.Owner(); o != examined && !o.SameProcess(me) {
			if mine {
				return fmt.Errorf("%w: task %q is %s by process %d on %s now", ErrTakenOver, r.Task, r.State, r.CreatorPID, r.CreatorHost)
			}
			if r.State.InFlight() {
				return NotNow(r, to, fmt.Errorf("%w: process %d signed it meanwhile", record.ErrIllegalMove, o.PID))
			}
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

// ErrTakenOver is a state move refused because another process signed
// the task meanwhile: the operation is no longer this process's.
var ErrTakenOver = errors.New("another process took the task over")

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

// Self is this process as a record's owner, signing now.
func Self() record.Owner {
	me := proc.Self()
	return record.Owner{PID: me.PID, Host: me.Host, Boot: me.Boot, PIDNS: me.PIDNS, Start: me.Start, At: time.Now().UTC().Round(0)}
}

type signerKey struct{}

// SigningAs is ctx whose state moves (Transition) sign with o: a record
// whose next content was written ahead (Store.Prewrite) must be signed
// as it was then, or the write would not find its blob.
func SigningAs(ctx context.Context, o record.Owner) context.Context {
	return context.WithValue(ctx, signerKey{}, o)
}

// signer is the owner a state move made under ctx signs with.
func signer(ctx context.Context) record.Owner {
	if o, ok := ctx.Value(signerKey{}).(record.Owner); ok {
		return o
	}
	return Self()
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
	if proc.RemoveOwnStaleLock(lock, m.RepoDirs()...) != nil {
		return err
	}
	return write()
}

// PastStaleRefLocks runs write, a ref transaction that other processes
// may meet (new's record, its branch, the pool entry it takes); if git
// fails on the lock file of one of the repository's refs that no git of
// the repository can own (a git killed mid-write left it, judged as
// doctor judges it), the lock is deleted and write runs once more. A
// live git's lock was waited for already (git.Runner.Exec's retries).
func (m *Manager) PastStaleRefLocks(write func() error) error {
	err := write()
	lock, ok := git.LockFileOf(err)
	if !ok || !m.refLock(lock) {
		return err
	}
	if proc.RemoveStaleLock(lock, false, m.RepoDirs()...) != nil {
		return err
	}
	m.Warn("deleted %s, which a git that was killed left behind", lock)
	return write()
}

// refLock says whether lock, a lock file git named, is one of the
// repository's refs' own: packed-refs.lock, or a file in its refs folder
// reached through real folders only. An agent can put a link, or on
// Windows a junction, in refs/: git follows it to any folder, where a
// lock file is someone's file, or another repository's live lock.
func (m *Manager) refLock(lock string) bool {
	if fsutil.SamePath(lock, filepath.Join(m.Repo.CommonDir, "packed-refs.lock")) {
		return true
	}
	refs := filepath.Join(m.Repo.CommonDir, "refs")
	if !fsutil.Within(refs, lock) || fsutil.SamePath(refs, lock) {
		return false
	}
	for dir := filepath.Dir(lock); ; dir = filepath.Dir(dir) {
		if st, err := os.Lstat(dir); err != nil || st.Mode().Type() != fs.ModeDir {
			return false // a link, a junction (irregular), or gone
		}
		if fsutil.SamePath(dir, refs) {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}

// RepoDirs are the folders where a git of this repository works: the
// main worktree, the base dir with the tasks, the git dir.
func (m *Manager) RepoDirs() []string {
	return []string{m.Repo.MainDir, m.Settings.BaseDir, m.Repo.CommonDir}
}

// Owner is the process that drives the task's current state change.
func Owner(rec *record.Record) proc.ID {
	return OwnerID(rec.Owner())
}

// OwnerID is a record's or a pool entry's owner as a process to check.
func OwnerID(o record.Owner) proc.ID {
	return proc.ID{PID: o.PID, Host: o.Host, Boot: o.Boot, PIDNS: o.PIDNS, Start: o.Start}
}

// NameGroup records in init the process group pgid of a running init,
// whose leader started at start, counted in this process's namespace.
func NameGroup(init *record.Init, pgid int, start string) {
	init.PGID, init.PGIDStart, init.PGIDNS = pgid, start, proc.Self().PIDNS
}

// InitGroup is the process group an init record names, which owner (the
// git-wt that ran the init) started in the worktree at dir, led by its
// supervisor: ended only while that supervisor still leads it.
func InitGroup(init record.Init, owner record.Owner, dir string) proc.Group {
	return proc.Group{ID: init.PGID, LeaderStart: init.PGIDStart, NS: init.PGIDNS,
		LeaderArgs: child.SupervisorArgs(owner.PID), Parent: owner.PID, Dir: dir}
}

// Silence is how long ago the owner last signed: the age that
// wt.orphanGrace is measured against when the owner's liveness is
// unknown. Records written before the stamp carried its time count from
// their creation.
func Silence(o record.Owner, created time.Time) time.Duration {
	if o.At.IsZero() {
		return time.Since(created)
	}
	return time.Since(o.At)
}

// OwnerGone reports whether the process driving the task's state change
// is gone (SPEC §15): proven dead, or of unknown liveness and silent for
// wt.orphanGrace — judged by JudgeOwner, so ErrMovedOn when the record
// changed since it was read. Anything else is in flight, and left to its
// owner.
func (m *Manager) OwnerGone(ctx context.Context, e *record.Entry) (bool, error) {
	alive, err := m.JudgeOwner(ctx, e)
	if err != nil {
		return false, err
	}
	return m.Abandoned(e.Record, alive), nil
}

// SinceLastChange is how long ago the record last changed, as far as it
// says: the latest of its creation, its owner's last signature and its
// last access.
func SinceLastChange(rec *record.Record) time.Duration {
	last := rec.CreatedAt
	for _, t := range []time.Time{rec.ChangedAt, rec.LastAccessAt} {
		if t.After(last) {
			last = t
		}
	}
	return time.Since(last)
}

// Stopped says what is known of the owner of rec's operation, not alive
// as alive says: that it stopped, that its lease ran out (SPEC §15: it is
// judged stopped, though it cannot be seen), or that it cannot be seen,
// and so may still run.
func (m *Manager) Stopped(rec *record.Record, alive proc.Liveness) string {
	switch {
	case alive == proc.Dead:
		return "stopped"
	case m.Abandoned(rec, alive):
		return "whose lease was " + notRenewed(rec)
	}
	return "cannot be seen from here, so it may still run (" + proc.Unseen() + "); it counts as stopped once its lease runs out, wt.orphanGrace after its last change"
}

// Abandoned says whether an owner judged alive as it is has left the
// task's change: dead, or unknown and silent for wt.orphanGrace.
func (m *Manager) Abandoned(rec *record.Record, alive proc.Liveness) bool {
	switch alive {
	case proc.Dead:
		return true
	case proc.Unknown:
		return Silence(rec.Owner(), rec.CreatedAt) >= m.Settings.OrphanGrace
	}
	return false
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
