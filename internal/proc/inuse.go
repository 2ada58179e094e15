package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// User is a process whose working directory lies in a folder.
type User struct {
	PID    int
	Name   string // the command name
	Cwd    string
	Caller bool // one of this process's ancestors: the shell that ran it, say
}

// UsersOf lists the running processes whose working directory is dir or a
// folder below it (Linux: /proc/<pid>/cwd), compared by path and, for dir
// itself, by device and inode, so a renamed or symlinked path is still
// caught. This process and its children are left out, other git-wt
// processes and their gits too (gitWtsOwn), and so is git's own process
// when git started this one (`git wt ...`: it only waits for it); the
// caller counts (SPEC §7 "In use": a shell inside the worktree
// that runs `git wt rm .` would be left in a deleted folder), callers
// first.
func UsersOf(dir string) []User {
	root, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	rootSys, _ := root.Sys().(*syscall.Stat_t)
	callers := ancestors()
	skip := map[int]bool{os.Getpid(): true}
	if p := os.Getppid(); commName(p) == "git" {
		skip[p] = true // git's dispatcher: it exits when this process does
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var users []User
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] {
			continue
		}
		link := "/proc/" + e.Name() + "/cwd"
		cwd, err := os.Readlink(link)
		if err != nil {
			continue
		}
		in := fsutil.Within(dir, filepath.Clean(strings.TrimSuffix(cwd, " (deleted)")))
		if !in && rootSys != nil {
			if st, err := os.Stat(link); err == nil {
				if s, ok := st.Sys().(*syscall.Stat_t); ok && s.Dev == rootSys.Dev && s.Ino == rootSys.Ino {
					in = true
				}
			}
		}
		// A child of this process (a git it started, caught between fork
		// and exec with this process's working directory) is its own.
		if !in || parentOf(pid) == os.Getpid() {
			continue
		}
		name := commName(pid)
		if name == "" || gitWtsOwn(pid, name) {
			continue // gone since its cwd was read, or another git-wt's
		}
		users = append(users, User{PID: pid, Name: name, Cwd: cwd, Caller: callers[pid]})
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
	return users
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
	f, err := statFields(pid)
	if err != nil || len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func commName(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(data))
}

// gitWtsOwn reports whether pid is another git-wt, or a git that another
// git-wt started (a status, say): those come and go within the command,
// which coordinates with this one through the task's record and the lock,
// so they use no worktree the way a shell or an editor does. Without this,
// two rm of one task would each see the other's git status and refuse.
//
// git wt exec is the exception: from the moment it enters the worktree it
// is the command it becomes, and it names itself ExecName (MarkAsUser)
// so that it counts as a user, not as another git-wt.
func gitWtsOwn(pid int, name string) bool {
	switch name {
	case "git-wt":
		return true
	case "git":
		ppid := parentOf(pid)
		return ppid == 0 || commName(ppid) == "git-wt" // 0: it has exited meanwhile
	}
	return false
}

// ExecName is the process name git wt exec takes before it enters the
// worktree: a user of the worktree (see gitWtsOwn).
const ExecName = "git-wt-exec"

// MarkAsUser renames this process ExecName (the name /proc/<pid>/comm
// shows; at most 15 bytes), for git wt exec before it enters a worktree:
// other git-wt processes then count it as a user of that worktree until
// it becomes the command, which takes the command's name. Best effort: a
// system without /proc has no look for users either.
func MarkAsUser() {
	os.WriteFile("/proc/self/comm", []byte(ExecName), 0)
}
