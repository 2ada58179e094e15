package proc

import (
	"os"
	"path/filepath"
	"slices"
)

// User is a process whose working directory lies in a folder.
type User struct {
	PID    int
	Name   string // the command name
	Cwd    string
	Caller bool // one of this process's ancestors: the shell that ran it, say
}

// UsersOf lists the running processes whose working directory is dir or a
// folder below it, compared by path and, for dir itself, by device and
// inode, so a renamed or symlinked path is still caught; below dir, by
// its path as given and resolved. This process and its children are left
// out, other git-wt processes and their gits too (gitWtsOwn), and so is git's own process when git started this one
// (`git wt ...`: it only waits for it); the caller counts (SPEC §7 "In
// use": a shell inside the worktree that runs `git wt rm .` would be left
// in a deleted folder), callers first.
//
// When this process cannot see every process of its namespace (Sight),
// the answer is unknown: a *BlindError, never "no users". Processes whose
// working directory this user may not read (another user's) are not
// counted, as before.
func UsersOf(dir string) ([]User, error) {
	if err := Sight(); err != nil {
		return nil, err
	}
	root, err := os.Stat(dir)
	if err != nil {
		return nil, nil
	}
	rootID := dirID(root)
	// The table gives working directories resolved (macOS's /tmp is
	// /private/tmp): dir is compared as given and resolved.
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	pids, err := sys.pids()
	if err != nil {
		return nil, &BlindError{Why: err.Error()}
	}
	me := os.Getpid()
	skip := map[int]bool{me: true}
	if p := os.Getppid(); nameOf(p) == "git" {
		skip[p] = true // git's dispatcher: it exits when this process does
	}
	callers := ancestors()
	var users []User
	for _, pid := range pids {
		if skip[pid] {
			continue
		}
		cwd, id, err := sys.cwd(pid)
		if err != nil {
			continue
		}
		in := withinAny(dirs, filepath.Clean(cwd)) || rootID != (fileID{}) && id == rootID
		if !in {
			continue
		}
		st, err := sys.stat(pid)
		// A child of this process (a git it started, caught between fork
		// and exec with this process's working directory) is its own.
		if err != nil || st.exited || st.ppid == me || gitWtsOwn(st) {
			continue // gone since its cwd was read, or another git-wt's
		}
		users = append(users, User{PID: pid, Name: st.name, Cwd: cwd, Caller: callers[pid]})
	}
	slices.SortStableFunc(users, func(a, b User) int {
		switch {
		case a.Caller == b.Caller:
			return 0
		case a.Caller:
			return -1
		}
		return 1
	})
	return users, nil
}

// ancestors is this process and every process above it.
func ancestors() map[int]bool {
	seen := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !seen[pid]; pid = parentOf(pid) {
		seen[pid] = true
	}
	return seen
}

func parentOf(pid int) int {
	st, err := sys.stat(pid)
	if err != nil {
		return 0
	}
	return st.ppid
}

func nameOf(pid int) string {
	st, err := sys.stat(pid)
	if err != nil {
		return ""
	}
	return st.name
}

// gitWtsOwn reports whether a process is another git-wt, or a git that
// another git-wt started (a status, say): those come and go within the
// command, which coordinates with this one through the task's record and
// the lock, so they use no worktree the way a shell or an editor does.
// Without this, two rm of one task would each see the other's git status
// and refuse.
//
// git wt exec is the exception: from the moment it enters the worktree it
// is the command it becomes, and it names itself ExecName (MarkAsUser)
// so that it counts as a user, not as another git-wt.
func gitWtsOwn(st stat) bool {
	switch st.name {
	case "git-wt":
		return true
	case "git":
		parent, err := sys.stat(st.ppid)
		return err != nil || parent.name == "git-wt" // an error: its parent has exited meanwhile
	}
	return false
}

// ExecName is the process name git wt exec takes before it enters the
// worktree: a user of the worktree (see gitWtsOwn).
const ExecName = "git-wt-exec"

// MarkAsUser renames this process ExecName (at most 15 bytes), for git wt
// exec before it enters a worktree: other git-wt processes then count it
// as a user of that worktree until it becomes the command, which takes
// the command's name. Best effort: a system whose processes cannot be
// seen has no look for users either.
func MarkAsUser() { sys.rename(ExecName) }
