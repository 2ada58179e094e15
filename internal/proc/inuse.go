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
	users, err := UsersOfEach([]string{dir})
	if err != nil {
		return nil, err
	}
	return users[0], nil
}

// UsersOfEach is UsersOf for each of dirs, from one reading of the
// process table (list --all asks it of every worktree at once).
func UsersOfEach(dirs []string) ([][]User, error) {
	if err := Sight(); err != nil {
		return nil, err
	}
	targets := make([]usedDir, len(dirs))
	present := false
	for i, dir := range dirs {
		targets[i] = usedDirOf(dir)
		present = present || !targets[i].absent
	}
	users := make([][]User, len(dirs))
	if !present {
		return users, nil
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
	for _, pid := range pids {
		if skip[pid] {
			continue
		}
		cwd, id, err := sys.cwd(pid)
		if err != nil {
			continue
		}
		var st *stat
		for i, t := range targets {
			if !t.holds(filepath.Clean(cwd), id) {
				continue
			}
			if st == nil {
				s, err := sys.stat(pid)
				// A child of this process (a git it started, caught between fork
				// and exec with this process's working directory) is its own.
				if err != nil || s.exited || s.ppid == me || gitWtsOwn(s) {
					break // gone since its cwd was read, or another git-wt's
				}
				st = &s
			}
			users[i] = append(users[i], User{PID: pid, Name: st.name, Cwd: cwd, Caller: callers[pid]})
		}
	}
	for _, u := range users {
		slices.SortStableFunc(u, func(a, b User) int {
			switch {
			case a.Caller == b.Caller:
				return 0
			case a.Caller:
				return -1
			}
			return 1
		})
	}
	return users, nil
}

// usedDir is a folder whose users are looked for: its paths as given and
// resolved, and its device and inode; a folder that is not there has no
// users.
type usedDir struct {
	paths  []string
	id     fileID
	absent bool
}

func usedDirOf(dir string) usedDir {
	root, err := os.Stat(dir)
	if err != nil {
		return usedDir{absent: true}
	}
	// The table gives working directories resolved (macOS's /tmp is
	// /private/tmp): dir is compared as given and resolved.
	d := usedDir{paths: []string{dir}, id: dirID(root)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		d.paths = append(d.paths, real)
	}
	return d
}

// holds says whether a working directory (as a path and an id) lies in d.
func (d usedDir) holds(cwd string, id fileID) bool {
	return !d.absent && (withinAny(d.paths, cwd) || d.id != (fileID{}) && id == d.id)
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
