package proc

import (
	"syscall"
)

// Group names a process group by its id and its leader's start time, so
// that a group that outlived its git-wt can be ended later without
// hitting another group that reuses the id.
type Group struct {
	ID          int
	LeaderStart string
	NS          string // the PID namespace ID is counted in
}

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
// had live members. A group whose id now has a leader that started at
// another time is someone else's and is left alone, and so is a group of
// another PID namespace, or one this process cannot see. (While any
// member of a group lives, the kernel does not give its id to a new
// process, so a group without its leader is still the one that was
// recorded.)
func (g Group) End() bool {
	if g.ID <= 1 || g.ID == syscall.Getpgrp() || g.NS == "" || g.NS != Self().PIDNS || namespaceSight() != nil {
		return false
	}
	if start, err := StartTime(g.ID); err == nil && g.LeaderStart != "" && start != g.LeaderStart {
		return false
	}
	if len(Members(g.ID)) == 0 {
		return false
	}
	return syscall.Kill(-g.ID, syscall.SIGKILL) == nil
}
