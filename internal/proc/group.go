package proc

import (
	"os"
	"strconv"
	"syscall"
)

// Group names a process group by its id and its leader's start time, so
// that a group that outlived its git-wt can be ended later without
// hitting another group that reuses the id.
type Group struct {
	ID          int
	LeaderStart string
}

// Members lists the live processes of process group pgid (Linux: field 5
// of /proc/<pid>/stat); zombies are left out, they have exited.
func Members(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields, err := statFields(pid)
		if err != nil || len(fields) < 3 || exited(fields) {
			continue
		}
		if g, err := strconv.Atoi(fields[2]); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// End kills what is left of the group with SIGKILL and reports whether it
// had live members. A group whose id now has a leader that started at
// another time is someone else's and is left alone. (While any member of
// a group lives, the kernel does not give its id to a new process, so a
// group without its leader is still the one that was recorded.)
func (g Group) End() bool {
	if g.ID <= 1 || g.ID == syscall.Getpgrp() {
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
