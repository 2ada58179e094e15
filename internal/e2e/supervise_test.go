// These tests protect SPEC §15's supervisor: an init (wt.init, and
// wt.poolInit in a fill) is ended whole — its own children included — when
// the git-wt that started it dies, however it dies; and a fill's init
// group that outlived both its git-wt and its supervisor is ended by the
// repair of the entry the fill left.
package e2e

import (
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
	s := testutil.NewSandbox(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	s.Git(s.Repo, "config", "wt.init", backgrounded(pidFile))
	cmd := startKillable(t, s, "new", "T")
	grandchild := startedPID(t, pidFile)
	kill(cmd)
	endsWithin(t, grandchild, "the init's child")
}

func TestAKilledFillEndsItsPoolInitsGrandchildren(t *testing.T) {
	s := poolSandbox(t, "1")
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	s.Git(s.Repo, "config", "wt.poolInit", backgrounded(pidFile))
	cmd := startKillable(t, s, "pool", "--fill")
	grandchild := startedPID(t, pidFile)
	kill(cmd)
	endsWithin(t, grandchild, "wt.poolInit's child")
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
	parent := startedPID(t, parentFile) // the shell's parent: the supervisor
	// Stopped, the supervisor cannot act on its git-wt's death before it
	// is killed too.
	syscall.Kill(parent, syscall.SIGSTOP)
	kill(cmd)
	syscall.Kill(parent, syscall.SIGKILL)
	if !alive(grandchild) {
		t.Fatal("the init's child died with its supervisor: nothing left for doctor to end")
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	endsWithin(t, grandchild, "the killed fill's wt.poolInit child")
}
