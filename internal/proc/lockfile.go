package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// startSlack covers the imprecision of a process's start on the wall
// clock: the boot time it counts from is in whole seconds.
const startSlack = 2 * time.Second

// LockHolder judges a git lock file (index.lock of the worktree at dir, a
// ref's lock in a repository whose folders are dirs), seen as seen: Dead
// when it was left by a git that died — no process has it open, no git
// process working in one of dirs started before it was made (a git may
// close a lock file and keep it while it runs a hook; git works in the
// top folder of its worktree), and it is still the file seen once every
// process was looked at (its git may have finished and let it go
// meanwhile); Alive when a process may hold it, or it is gone or another;
// Unknown when this process cannot see every process (Sight). A process
// whose files cannot be read counts as not holding it; a git whose start
// cannot be read as one that may; a process that is ending (a zombie, or
// killed) as one that does not.
func LockHolder(path string, seen fs.FileInfo, dirs ...string) Liveness {
	return lockHolder(path, seen, false, dirs)
}

// lockHolder is LockHolder; ownWrite says the lock is of a file that only
// this process writes now (a record ref it failed to write), so that no
// git it started can have made the lock. Elsewhere one may have: doctor's
// own git status may be about to rename the index.lock it judges.
func lockHolder(path string, seen fs.FileInfo, ownWrite bool, dirs []string) Liveness {
	if Sight() != nil {
		return Unknown
	}
	pids, err := sys.pids()
	if err != nil {
		return Unknown
	}
	held, err := sys.holders(path)
	if err != nil {
		return Unknown
	}
	for i, dir := range dirs {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dirs[i] = real
		}
	}
	self := os.Getpid()
	for _, pid := range pids {
		if pid == self {
			continue
		}
		st, err := sys.stat(pid)
		if err == nil && st.exited {
			continue
		}
		if held[pid] {
			return Alive
		}
		if err != nil || st.name != "git" || ownWrite && st.ppid == self {
			continue
		}
		if cwd, _, err := sys.cwd(pid); err != nil || !withinAny(dirs, filepath.Clean(cwd)) {
			continue
		}
		if st.startUnix == 0 || st.startUnix <= float64(seen.ModTime().Add(startSlack).UnixNano())/1e9 {
			return Alive // a git that may have made it still runs
		}
	}
	if !stillSame(path, seen) {
		return Alive
	}
	return Dead
}

// stillSame reports whether the file at path is still the one seen: the
// same file, not changed since.
func stillSame(path string, seen fs.FileInfo) bool {
	now, err := os.Lstat(path)
	return err == nil && os.SameFile(seen, now) && now.ModTime().Equal(seen.ModTime())
}

// withinAny reports whether path lies in one of dirs.
func withinAny(dirs []string, path string) bool {
	for _, dir := range dirs {
		if fsutil.Within(dir, path) {
			return true
		}
	}
	return false
}

// ErrLockHeld is a lock file a repair left because whether a process
// holds it cannot be told.
var ErrLockHeld = errors.New("cannot tell whether a process holds it")

// RemoveStaleLock deletes a git lock file if its holder is (still) dead,
// judged by LockHolder with the gits working in dirs — or, with force,
// whatever LockHolder says but Alive (a person's decision, for a holder
// that cannot be seen) — and only the very file that was judged: a git
// cannot make a new one while it exists, and the inode is compared before
// it goes.
func RemoveStaleLock(lock string, force bool, dirs ...string) error {
	return removeStaleLock(lock, force, false, dirs)
}

// RemoveOwnStaleLock is RemoveStaleLock, without force, of the lock of a
// file this process alone writes now (lockHolder's ownWrite): a write of
// it just failed on the lock.
func RemoveOwnStaleLock(lock string, dirs ...string) error {
	return removeStaleLock(lock, false, true, dirs)
}

func removeStaleLock(lock string, force, ownWrite bool, dirs []string) error {
	before, err := os.Lstat(lock)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch lockHolder(lock, before, ownWrite, dirs) {
	case Alive:
		if !stillSame(lock, before) {
			return nil // let go meanwhile: a retry may write
		}
		return fmt.Errorf("%s is in use by a running git", lock)
	case Unknown:
		if !force {
			return fmt.Errorf("%s: %w (%s)", lock, ErrLockHeld, Unseen())
		}
	}
	if !stillSame(lock, before) {
		return nil // gone, or another git's now
	}
	if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
