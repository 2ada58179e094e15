// These tests protect crash repair (SPEC §7 "Crash repair never guesses"):
// a repair acts only on the record it examined, never deletes what an agent
// wrote, and clears what a killed git or git-wt left behind (a zombie
// creator, a stale index.lock, git's "initializing" lock, an init that
// outlived its git-wt, a merge stopped in its cleanup).
package e2e

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// procState is the state letter of process pid (R, S, Z, ...).
func procState(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

func TestZombieCreatorCountsAsDead(t *testing.T) {
	s := testutil.NewSandbox(t)
	cmd := stopAt(t, s, "new:checked-out", "new", "T")
	// Killed but not reaped: the creator is a zombie, as when its parent
	// (an agent runner) is slow to wait for it.
	cmd.Process.Signal(syscall.SIGKILL)
	waitFor(t, func() bool { return procState(cmd.Process.Pid) == "Z" })
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, task.StuckCreation) {
		t.Fatalf("doctor must see the stuck creation of a zombie creator: %s", r)
	}
	// new takes the task over at once instead of waiting for the zombie.
	quick := withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.lockTimeout", "GIT_CONFIG_VALUE_0=5s")
	if r := quick.WT("new", "T"); r.Code != 0 || !testutil.Exists(r.Out()+"/README.md") {
		t.Fatalf("new of a task whose creator is a zombie: %s", r)
	}
	cmd.Wait()
}
