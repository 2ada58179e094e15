package proc

import (
	"fmt"
	"syscall"
	"time"
)

// ReapGrace is how long the processes rm --reap ends have after SIGTERM
// before they get SIGKILL (SPEC §17).
const ReapGrace = 5 * time.Second

// reapPoll is how often Reap looks again while it waits.
const reapPoll = 50 * time.Millisecond

// Reap ends the processes working in dir (UsersOf): SIGTERM, then
// SIGKILL to those still there after grace; a process that starts
// working there meanwhile gets the same. Never the callers (the shell or
// runner that started this process): they are left, and returned, for
// the removal's own in-use check to refuse. When the processes cannot be
// seen (a *BlindError) nothing is signalled. It returns the processes it
// ended, and an error when some are still there once SIGKILL has had its
// time.
func Reap(dir string, grace time.Duration) (ended []User, err error) {
	termed := map[int]string{} // pid → start time when it got SIGTERM
	killAt := time.Now().Add(grace)
	killed := false
	for deadline := killAt.Add(2 * time.Second); ; {
		users, err := UsersOf(dir)
		if err != nil {
			return ended, err
		}
		left := 0
		for _, u := range users {
			if u.Caller {
				continue
			}
			left++
			start, seen := termed[u.PID]
			now, _ := StartTime(u.PID)
			if seen && start != "" && now != "" && start != now {
				seen = false // the pid was reused: another process
			}
			switch {
			case !seen:
				termed[u.PID] = now
				ended = append(ended, u)
				kill(u.PID, syscall.SIGTERM)
			case killed || time.Now().After(killAt):
				kill(u.PID, syscall.SIGKILL)
			}
		}
		if left == 0 {
			return ended, nil
		}
		if time.Now().After(killAt) {
			killed = true
		}
		if time.Now().After(deadline) {
			return ended, fmt.Errorf("%d %s still working in %s after SIGKILL", left, plural(left), dir)
		}
		time.Sleep(reapPoll)
	}
}

func plural(n int) string {
	if n == 1 {
		return "process is"
	}
	return "processes are"
}
