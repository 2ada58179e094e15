package proc

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// Group names a process group by its id and its leader's start time, so
// that a group that outlived its git-wt can be ended later without
// hitting another group that reuses the id. A record names it, and
// records can be written by anything that can write the git dir (SPEC
// §19): the leader's start time is public, so it proves nothing alone.
// The group is ended only when its leader is still the process git-wt
// started: its supervisor (child.Supervise), run with LeaderArgs, in Dir,
// and no longer the child of the git-wt that started it (which is gone).
type Group struct {
	ID          int
	LeaderStart string
	NS          string // the PID namespace ID is counted in
	// LeaderArgs are the first arguments the leader was started with:
	// git-wt's supervisor and the pid of the git-wt that started it.
	LeaderArgs []string
	// Parent is that git-wt, whose death left the group behind: a leader
	// that is still its child is another git-wt's, which reused the pid.
	Parent int
	// Dir is the leader's working folder: the task's worktree.
	Dir string
}

// GroupEnv is the variable git-wt's supervisor gives the command it
// runs, and so every process of its group that keeps its environment:
// the group's id. A group whose leader is gone (killed with its git-wt)
// is still told as git-wt's when each of its live processes carries it;
// no process of the user's does.
const GroupEnv = "GIT_WT_GROUP"

// errLeaderGone: the group's leader has exited.
var errLeaderGone = errors.New("its leader is gone, and not all of its processes were started by git-wt's supervisor")

// Members lists the live processes of process group pgid; zombies are
// left out, they have exited. Where the process table cannot be read it
// is empty.
func Members(pgid int) []int {
	if namespaceSight() != nil {
		return nil
	}
	pids, err := sys.pids()
	if err != nil {
		return nil
	}
	var members []int
	for _, pid := range pids {
		if st, err := sys.stat(pid); err == nil && !st.exited && st.pgid == pgid {
			members = append(members, pid)
		}
	}
	return members
}

// End kills what is left of the group with SIGKILL and reports whether it
// had live members. A group of another PID namespace, one this process
// cannot see, and one whose id now has a leader that started at another
// time are someone else's, or gone: left alone, no error. A group with
// live members whose leader is not the supervisor g names (gone, or
// another program) cannot be told from the user's own: left alone too,
// and the error says why.
func (g Group) End() (bool, error) {
	if g.ID <= 1 || g.ID == ownGroup() || g.NS == "" || g.NS != Self().PIDNS || namespaceSight() != nil {
		return false, nil
	}
	if start, err := StartTime(g.ID); err == nil && start != g.LeaderStart {
		return false, nil
	}
	members := Members(g.ID)
	if len(members) == 0 {
		return false, nil
	}
	if err := g.ledBySupervisor(); err != nil && !(errors.Is(err, errLeaderGone) && allMarked(members, g.ID)) {
		return false, fmt.Errorf("process group %d was left alone: %w", g.ID, err)
	}
	return kill(-g.ID, syscall.SIGKILL) == nil, nil
}

// ledBySupervisor checks that the group's leader is the supervisor g
// names, whose parent git-wt is gone.
func (g Group) ledBySupervisor() error {
	st, err := sys.stat(g.ID)
	if err != nil || st.exited || st.pgid != g.ID {
		return errLeaderGone
	}
	if g.LeaderStart == "" || st.start != g.LeaderStart {
		return errors.New("its leader's start time is not the one recorded")
	}
	args, err := sys.args(g.ID)
	if err != nil || len(g.LeaderArgs) == 0 || len(args) < len(g.LeaderArgs) || !slices.Equal(args[:len(g.LeaderArgs)], g.LeaderArgs) {
		return errors.New("its leader is not git-wt's supervisor of that task")
	}
	if st.ppid == g.Parent {
		return errors.New("its leader's git-wt is still running")
	}
	if !sameDir(g.ID, g.Dir) {
		return errors.New("its leader does not work in the task's worktree")
	}
	return nil
}

// allMarked says whether every process of pids carries GroupEnv with
// the id of group pgid.
func allMarked(pids []int, pgid int) bool {
	mark := GroupEnv + "=" + strconv.Itoa(pgid)
	for _, pid := range pids {
		env, err := sys.env(pid)
		if err != nil || !slices.Contains(env, mark) {
			return false
		}
	}
	return true
}

// sameDir says whether process pid's working directory is dir (by device
// and inode).
func sameDir(pid int, dir string) bool {
	_, id, err := sys.cwd(pid)
	if err != nil || id == (fileID{}) {
		return false
	}
	st, err := os.Stat(dir)
	if err != nil {
		return false
	}
	return id == dirID(st)
}
