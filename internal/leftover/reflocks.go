package leftover

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/task"
)

// StaleRefLock is a ref's lock file (refs/heads/wt/x.lock,
// refs/git-wt/tasks/x.lock, packed-refs.lock) left by a git killed in the
// middle of a ref transaction: until it goes, every update of that ref
// fails ("cannot lock ref"). The main worktree's index.lock and HEAD.lock
// (a killed git wt merge's) are found the same way.
const StaleRefLock task.Kind = "stale-ref-lock"

// refLockRoots are where git-wt's and its tasks' ref lock files may be,
// relative to the git common dir: git-wt's own refs, and the branches.
var refLockRoots = []string{"refs/git-wt", "refs/wt", "refs/heads"}

// StaleRefLocks finds the ref lock files a killed git left. A ref lock is
// written, closed and kept while its transaction runs, so "no process has
// it open" is not enough: a lock is stale only when, besides, no git
// working in this repository (the main worktree, the base dir with the
// tasks, the git dir) started before it was made.
func (m *Sweeper) StaleRefLocks() []*task.Problem {
	var problems []*task.Problem
	for _, lock := range m.refLockFiles() {
		holder := m.refLockHolder(lock)
		if holder == proc.Alive {
			continue
		}
		problems = append(problems, &task.Problem{Kind: StaleRefLock, Path: lock, Age: -1,
			Ref:    strings.TrimSuffix(filepath.ToSlash(relTo(m.Repo.CommonDir, lock)), ".lock"),
			Detail: lockDetail(holder, "this lock file in a ref update: git cannot update that ref until it is gone"),
			Fix:    "delete the lock file",
			FixWith: func(_ context.Context, force bool) error {
				return proc.RemoveStaleLock(lock, force, m.RepoDirs()...)
			}})
	}
	return problems
}

// StaleGCLocks finds the gc.log.lock files (the main worktree's, and
// every linked worktree's, tasks and pool entries alike) that a detached
// git gc --auto left when it was killed: a sandbox that ends kills every
// process of its PID namespace, detached ones too. Judged as a ref lock
// is, by every git of the repository.
func (m *Sweeper) StaleGCLocks() []*task.Problem {
	locks, _ := filepath.Glob(filepath.Join(m.Repo.CommonDir, "worktrees", "*", "gc.log.lock"))
	if main := filepath.Join(m.Repo.CommonDir, "gc.log.lock"); fileExists(main) {
		locks = append(locks, main)
	}
	var problems []*task.Problem
	for _, lock := range locks {
		holder := m.refLockHolder(lock)
		if holder == proc.Alive {
			continue
		}
		problems = append(problems, &task.Problem{Kind: StaleGCLock, Path: lock, Age: -1,
			Detail: lockDetail(holder, "this lock of a detached git gc --auto: every later auto gc there dies on it"),
			Fix:    "delete the lock file",
			FixWith: func(_ context.Context, force bool) error {
				return proc.RemoveStaleLock(lock, force, m.RepoDirs()...)
			}})
	}
	return problems
}

func fileExists(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

// refLockFiles lists the lock files under refLockRoots, and the lock
// files of the git common dir itself.
func (m *Sweeper) refLockFiles() []string {
	var locks []string
	for _, root := range refLockRoots {
		filepath.WalkDir(filepath.Join(m.Repo.CommonDir, root), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".lock") {
				locks = append(locks, p)
			}
			return nil
		})
	}
	// packed-refs.lock; the main worktree's own index.lock, HEAD.lock and
	// ORIG_HEAD.lock, which a git merge killed inside git wt merge leaves;
	// the lock of git's auto-maintenance, which a git commit killed
	// inside git wt commit leaves (every later auto-maintenance then
	// fails); and git gc's gc.pid.lock, which a git gc --auto killed as it
	// wrote gc.pid leaves (every later gc then dies on it).
	for _, name := range []string{"packed-refs.lock", "index.lock", "HEAD.lock", "ORIG_HEAD.lock", "objects/maintenance.lock", "gc.pid.lock"} {
		p := filepath.Join(m.Repo.CommonDir, name)
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			locks = append(locks, p)
		}
	}
	return locks
}

// refLockHolder judges one ref lock file (see StaleRefLocks); Alive when
// it is gone.
func (m *Sweeper) refLockHolder(lock string) proc.Liveness {
	st, err := os.Lstat(lock)
	if err != nil {
		return proc.Alive
	}
	return proc.LockHolder(lock, st, m.RepoDirs()...)
}

// relTo is p relative to dir, or p itself when it is not below dir.
func relTo(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
