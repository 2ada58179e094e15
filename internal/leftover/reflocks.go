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
// relative to the git common dir: git-wt's own refs, the branches, and
// the reflogs (git reflog expire, run inside git gc, locks each reflog it
// rewrites).
var refLockRoots = []string{"refs/git-wt", "refs/wt", "refs/heads", "logs"}

// StaleRefLocks finds the ref lock files a killed git left, and the
// other files of the common dir a killed git leaves that stop later gits
// (commonDirFiles). A ref lock is written, closed and kept while its
// transaction runs, so "no process has it open" is not enough: a lock is
// stale only when, besides, no git working in this repository (the main
// worktree, the base dir with the tasks, the git dir) started before it
// was made.
func (m *Sweeper) StaleRefLocks() []*task.Problem {
	var problems []*task.Problem
	for _, lock := range m.refLockFiles() {
		holder := m.refLockHolder(lock)
		if holder == proc.Alive {
			continue
		}
		rel := filepath.ToSlash(relTo(m.Repo.CommonDir, lock))
		problems = append(problems, &task.Problem{Kind: StaleRefLock, Path: lock, Age: -1,
			Ref:    strings.TrimSuffix(rel, ".lock"),
			Detail: lockDetail(holder, whatItStops(rel)),
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

// commonDirFiles are the files of the git common dir that a killed git
// leaves and that stop later gits, with what each stops.
var commonDirFiles = []struct{ name, stops string }{
	{"packed-refs.lock", "this lock of packed-refs: git cannot update or delete a packed ref until it is gone"},
	// A git killed as it rewrote packed-refs: every later deletion of a
	// packed ref fails with "File exists".
	{"packed-refs.new", "this half-written packed-refs: every deletion of a packed ref fails (\"File exists\") until it is gone"},
	// A git wt merge killed while git merged in the main worktree, or as
	// it moved HEAD.
	{"index.lock", "the main worktree's index.lock: git refuses to work there until it is gone"},
	{"HEAD.lock", "the main worktree's HEAD.lock: git cannot move HEAD there until it is gone"},
	{"ORIG_HEAD.lock", "the main worktree's ORIG_HEAD.lock: no merge or rebase there until it is gone"},
	// A git commit killed in git's auto-maintenance, inside git wt commit.
	{"objects/maintenance.lock", "the lock of git's auto-maintenance: every later maintenance fails until it is gone"},
	// A git gc --auto killed as it wrote gc.pid, or after: in a PID
	// namespace gc.pid's pid may be another process's, which keeps every
	// later gc --auto off for 12 hours.
	{"gc.pid.lock", "the lock of git gc's gc.pid: every later gc dies on it until it is gone"},
	{"gc.pid", "the gc.pid of a git gc: later gcs take that gc for running"},
	{"shallow.lock", "this lock of the shallow file: every fetch fails until it is gone"},
	{"config.lock", "this lock of the repository's config: every git config write fails until it is gone"},
}

// whatItStops says what the file at rel (relative to the common dir)
// stops while it is there.
func whatItStops(rel string) string {
	for _, f := range commonDirFiles {
		if f.name == rel {
			return f.stops
		}
	}
	if strings.HasPrefix(rel, "logs/") {
		return "this lock of a reflog (git reflog expire, inside git gc): git cannot update that ref until it is gone"
	}
	return "this lock file in a ref update: git cannot update that ref until it is gone"
}

// refLockFiles lists the lock files under refLockRoots, and the files of
// commonDirFiles that are there.
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
	for _, f := range commonDirFiles {
		p := filepath.Join(m.Repo.CommonDir, filepath.FromSlash(f.name))
		if fileExists(p) {
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
