package leftover

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// What a killed git leaves in a task (SPEC §7): a stale index.lock or
// HEAD.lock in its admin dir, and the "initializing" lock that `git
// worktree add` puts on the admin entry while it works.
const (
	StaleIndexLock task.Kind = "stale-index-lock" // index.lock of a git that died
	StaleHeadLock  task.Kind = "stale-head-lock"  // HEAD.lock of a git that died
	// StaleGCLock is the gc.log.lock of a detached git gc --auto that was
	// killed (a sandbox that ended kills every process of its PID
	// namespace, a detached one too): every later auto gc there dies on it.
	StaleGCLock      task.Kind = "stale-gc-lock"
	InitializingLock task.Kind = "initializing-lock" // git worktree add's own lock, its process gone
)

// gitLocks are the lock files a killed git leaves in a worktree's admin
// dir that stop every later git there, by the problem kind they are
// (ORIG_HEAD.lock: a merge or rebase killed as it moved HEAD).
var gitLocks = []struct {
	name string
	kind task.Kind
}{{"index.lock", StaleIndexLock}, {"HEAD.lock", StaleHeadLock}, {"ORIG_HEAD.lock", StaleHeadLock}}

// initializingReason is the lock reason `git worktree add` writes while it
// sets a worktree up (git-wt runs it with LC_ALL=C, so it is not
// translated); it deletes the file when it is done.
const initializingReason = "initializing"

// GitLeftovers finds what killed gits left in the tasks' worktrees, and
// the index.lock of every other linked worktree (a pool entry's, another
// tool's): git refuses to work there too until it goes.
func (m *Sweeper) GitLeftovers(entries []record.Entry, wts []git.Worktree) []*task.Problem {
	var problems []*task.Problem
	tasks := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		rec := e.Record
		if rec != nil {
			tasks[filepath.Clean(rec.Path)] = true
		}
		if rec == nil || midOperation(rec) {
			continue
		}
		for _, l := range gitLocks {
			lock, holder := judgeLock(m.Repo.CommonDir, rec.Path, l.name)
			if holder == proc.Alive {
				continue
			}
			name := l.name
			problems = append(problems, &task.Problem{Kind: l.kind, Task: rec.Task, Path: lock, Branch: rec.Branch, Entry: e, Age: -1,
				Detail: lockDetail(holder, "its "+name+": git refuses to work in "+rec.Path+" until it is gone"),
				Fix:    "delete the lock file",
				FixWith: func(_ context.Context, force bool) error {
					return removeStaleLock(m.Repo.CommonDir, rec.Path, name, force)
				}})
		}
		if wt := task.FindWorktree(wts, rec.Path); wt != nil && wt.Locked && wt.LockReason == initializingReason {
			problems = append(problems, &task.Problem{Kind: InitializingLock, Task: rec.Task, Path: rec.Path, Branch: rec.Branch, Entry: e, Age: -1,
				Detail: "a git worktree add that was killed left the worktree locked (" + initializingReason + ")",
				Fix:    "unlock the worktree",
				FixWith: func(ctx context.Context, _ bool) error {
					return m.unlockInitializing(ctx, rec.Path)
				}})
		}
	}
	for i, wt := range wts {
		if i == 0 || wt.Bare || tasks[filepath.Clean(wt.Path)] {
			continue // the main worktree's locks are the common dir's (StaleRefLocks)
		}
		problems = append(problems, otherIndexLock(m.Repo.CommonDir, wt.Path)...)
	}
	return problems
}

// otherIndexLock reports the stale index.lock of a linked worktree that is
// no task's.
func otherIndexLock(commonDir, dir string) []*task.Problem {
	lock, holder := judgeLock(commonDir, dir, "index.lock")
	if holder == proc.Alive {
		return nil
	}
	return []*task.Problem{{Kind: StaleIndexLock, Path: lock, Age: -1,
		Detail: lockDetail(holder, "its index.lock: git refuses to work in "+dir+" until it is gone"),
		Fix:    "delete the lock file",
		FixWith: func(_ context.Context, force bool) error {
			return removeStaleLock(commonDir, dir, "index.lock", force)
		}}}
}

// midOperation says whether a live process drives the task's state: what
// git leaves behind may then be its work in progress.
func midOperation(rec *record.Record) bool {
	switch rec.State {
	case record.Active, record.Adopted, record.Failed:
		return false
	}
	return proc.Check(task.Owner(rec)) != proc.Dead
}

// lockOf is the lock file name in the git dir of the worktree at dir:
// a linked worktree's admin dir in the common dir commonDir (proven so:
// its .git file, which the agent can write, may name any folder), or the
// main worktree's .git folder.
func lockOf(commonDir, dir, name string) (string, bool) {
	admin, err := git.ProveLinked(commonDir, dir, dir)
	if err != nil {
		if st, serr := os.Lstat(filepath.Join(dir, ".git")); serr != nil || !st.IsDir() {
			return "", false
		}
		admin = filepath.Join(dir, ".git")
	}
	return filepath.Join(admin, name), true
}

// judgeLock finds the lock file name in the worktree at dir and judges
// its holder (proc.LockHolder): Dead for a stale one; Alive, too, when
// there is no such file.
func judgeLock(commonDir, dir, name string) (string, proc.Liveness) {
	lock, ok := lockOf(commonDir, dir, name)
	if !ok {
		return "", proc.Alive
	}
	st, err := os.Lstat(lock)
	if err != nil || !st.Mode().IsRegular() {
		return "", proc.Alive
	}
	return lock, proc.LockHolder(lock, st, dir)
}

// lockDetail says what is known of a lock file's holder, which is not
// alive: a git that was killed left what, or nobody can tell (SPEC §15:
// such a lock goes only with --force).
func lockDetail(holder proc.Liveness, what string) string {
	if holder == proc.Dead {
		return "a git that was killed left " + what
	}
	return "a git left " + what + ", and whether that git still runs cannot be told here (" + proc.Unseen() + "): delete it with doctor --fix --force once no git works in this repository"
}

// removeStaleLock deletes the worktree's lock file name if its holder is
// (still) dead, or, with force, not seen alive.
func removeStaleLock(commonDir, dir, name string, force bool) error {
	lock, ok := lockOf(commonDir, dir, name)
	if !ok {
		return nil
	}
	return proc.RemoveStaleLock(lock, force, dir)
}

// ClearStaleLocks removes the stale lock files of a killed git before
// git-wt works in a task's worktree (new resuming it, commit), saying so.
func (m *Sweeper) ClearStaleLocks(rec *record.Record) { m.clearStaleLocksIn(rec, rec.Path) }

// clearStaleLocksIn removes the stale lock files of a killed git in the
// worktree at dir, logged as rec's.
func (m *Sweeper) clearStaleLocksIn(rec *record.Record, dir string) {
	for _, l := range gitLocks {
		lock, holder := judgeLock(m.Repo.CommonDir, dir, l.name)
		if holder != proc.Dead {
			continue
		}
		if err := removeStaleLock(m.Repo.CommonDir, dir, l.name, false); err != nil {
			m.Warn("could not delete the stale lock %s: %v", lock, err)
			continue
		}
		m.Warn("deleted %s, which a git that was killed left behind", lock)
		m.LogEvent(rec, "repaired", string(l.kind)+": "+lock)
	}
}

// unlockInitializing unlocks the worktree at dir if `git worktree add`'s
// own lock is still on it, under the repository lock (git worktree add
// runs under it).
func (m *Sweeper) unlockInitializing(ctx context.Context, dir string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if locked, reason := git.WorktreeLock(dir); !locked || reason != initializingReason {
		return nil
	}
	return m.Git.UnlockWorktree(ctx, m.Repo.MainDir, dir)
}

// ClearInitializingLock is unlockInitializing for the task new or rm is
// about to use, when its owner is dead (or it is settled).
func (m *Sweeper) ClearInitializingLock(ctx context.Context, rec *record.Record) {
	if locked, reason := git.WorktreeLock(rec.Path); !locked || reason != initializingReason {
		return
	}
	if err := m.unlockInitializing(ctx, rec.Path); err != nil {
		m.Warn("could not unlock %s, which a killed git worktree add left locked: %v (run git worktree unlock %s)", rec.Path, err, rec.Path)
		return
	}
	m.LogEvent(rec, "repaired", string(InitializingLock)+": "+rec.Path)
}
