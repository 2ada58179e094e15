package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// startSlack covers the imprecision of a process's start time: the boot
// time it counts from is in whole seconds.
const startSlack = 2 * time.Second

// LockIsStale says whether a git lock file (index.lock of the worktree at
// dir, a ref's lock in a repository whose folders are dirs), made at made,
// was left by a git that died: no process has it open, and no git process
// working in one of dirs started before it was made (a
// git may close a lock file and keep it while it runs a hook; git works
// in the top folder of its worktree). A process whose files cannot be
// read counts as not holding it; a git whose start cannot be read as one
// that may.
func LockIsStale(path string, made time.Time, dirs ...string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for i, dir := range dirs {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dirs[i] = real
		}
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if hasOpen(pid, path) {
			return false
		}
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || strings.TrimSpace(string(comm)) != "git" {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err != nil || !withinAny(dirs, filepath.Clean(cwd)) {
			continue
		}
		fields, err := statFields(pid)
		if err != nil || exited(fields) {
			continue
		}
		start, err := startOf(fields)
		t, perr := time.Parse(time.RFC3339Nano, start)
		if err != nil || perr != nil || !t.After(made.Add(startSlack)) {
			return false // a git that may have made it still runs
		}
	}
	return true
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

// hasOpen reports whether process pid has path open.
func hasOpen(pid int, path string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(dir + "/" + fd.Name()); err == nil && target == path {
			return true
		}
	}
	return false
}

// RemoveStaleLock deletes a git lock file if it is (still) stale, judged
// by LockIsStale with the gits working in dirs, and only the very
// file that was judged: a git cannot make a new one while it exists, and
// the inode is compared before it goes.
func RemoveStaleLock(lock string, dirs ...string) error {
	before, err := os.Lstat(lock)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !LockIsStale(lock, before.ModTime(), dirs...) {
		return fmt.Errorf("%s is in use by a running git", lock)
	}
	if now, err := os.Lstat(lock); err != nil || !os.SameFile(before, now) {
		return nil // gone, or another git's now
	}
	if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
