//go:build unix

// These tests protect SPEC §15's supervisor: an init (wt.init, and
// wt.poolInit in a fill) is ended whole — its own children included — when
// the git-wt that started it dies, however it dies; and a fill's init
// group that outlived both its git-wt and its supervisor is ended by the
// repair of the entry the fill left.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// backgrounded is an init command that starts a child of its own (the
// init's grandchild, from git-wt's side) and waits for it, after writing
// the child's pid to pidFile. Its sleep outlasts every bound below, so
// that a child that dies did not die of old age.
func backgrounded(pidFile string) string {
	return "sleep 300 & echo $! > " + pidFile + "; wait"
}

// startedPID waits until pidFile holds a pid and returns it; the process
// is killed when the test ends, whatever the test found.
func startedPID(t *testing.T, pidFile string) int {
	t.Helper()
	var pid int
	waitFor(t, func() bool {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return strings.HasSuffix(string(data), "\n") && pid > 0
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// endsWithin fails the test unless process pid has ended within a bound:
// the supervisor ends the group when it learns that its git-wt died,
// which it learns asynchronously (a signal from the kernel).
func endsWithin(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (process %d) outlived the git-wt that started it", what, pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startKillable starts git-wt with args, to be killed by the test.
func startKillable(t *testing.T, s *testutil.Sandbox, args ...string) *exec.Cmd {
	t.Helper()
	cmd := s.Cmd(s.Repo, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestAKilledNewEndsItsInitsGrandchildren(t *testing.T) {
	killedEndsGrandchild(t, testutil.NewSandbox(t), "wt.init", "new", "T")
}

func TestAKilledFillEndsItsPoolInitsGrandchildren(t *testing.T) {
	killedEndsGrandchild(t, poolSandbox(t, "1"), "wt.poolInit", "pool", "--fill")
}

// killedEndsGrandchild sets key to a command that starts a child, runs
// git-wt with args, kills it with SIGKILL once the child runs, and
// checks that the child ends too.
func killedEndsGrandchild(t *testing.T, s *testutil.Sandbox, key string, args ...string) {
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	s.Git(s.Repo, "config", key, backgrounded(pidFile))
	cmd := startKillable(t, s, args...)
	grandchild := startedPID(t, pidFile)
	kill(cmd)
	endsWithin(t, grandchild, "the child of "+key)
}

// Should the supervisor die with its git-wt (both killed at once: an
// out-of-memory kill, a stress test), the pool entry the fill left names
// wt.poolInit's process group, and doctor's repair of the entry ends it.
func TestDoctorEndsTheInitGroupOfAFillKilledWithItsSupervisor(t *testing.T) {
	s := poolSandbox(t, "1")
	dir := t.TempDir()
	parentFile, pidFile := filepath.Join(dir, "parent"), filepath.Join(dir, "grandchild")
	s.Git(s.Repo, "config", "wt.poolInit", "echo $PPID > "+parentFile+"; "+backgrounded(pidFile))
	cmd := startKillable(t, s, "pool", "--fill")
	grandchild := startedPID(t, pidFile)
	supervisor := startedPID(t, parentFile) // the shell's parent
	waitFor(t, func() bool { return entryGroup(t, s) == supervisor })
	// Stopped, git-wt cannot act on its supervisor's death before it is
	// killed too: the two die as in one crash.
	syscall.Kill(cmd.Process.Pid, syscall.SIGSTOP)
	waitFor(t, func() bool { return stopped(cmd.Process.Pid) })
	syscall.Kill(supervisor, syscall.SIGKILL)
	kill(cmd)
	if !alive(grandchild) {
		t.Fatal("the init's child died with its supervisor: nothing left for doctor to end")
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	endsWithin(t, grandchild, "the killed fill's wt.poolInit child")
}

// entryGroup is the process group the one pool entry names (0: none yet).
func entryGroup(t *testing.T, s *testutil.Sandbox) int {
	var e struct {
		Init struct {
			PGID int `json:"pgid"`
		} `json:"init"`
	}
	refs := strings.Fields(s.Git(s.Repo, "for-each-ref", "--format=%(refname)", "refs/git-wt/pool/"))
	if len(refs) != 1 || json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", refs[0])), &e) != nil {
		return 0
	}
	return e.Init.PGID
}

// stopped says whether every thread of process pid is stopped.
func stopped(pid int) bool {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	for _, st := range stats {
		data, _ := os.ReadFile(st)
		if f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:])); len(f) == 0 || f[0] != "T" {
			return false
		}
	}
	return len(stats) > 0
}
