// These tests protect what crash repair relies on to end or clean up
// after a dead process: a leftover process group is ended only when it is
// the one recorded, and a lock file is stale only when no process holds it.
package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	needSight(t)
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	deadline := time.Now().Add(time.Minute)
	for len(Members(cmd.Process.Pid)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the group's child did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd
}

func TestGroupEndKillsTheRecordedGroupOnly(t *testing.T) {
	cmd := startGroup(t)
	pgid := cmd.Process.Pid
	start, _ := StartTime(pgid)
	ns := Self().PIDNS
	if (Group{ID: pgid, LeaderStart: "1", NS: ns}).End() {
		t.Fatal("a group whose leader started at another time was ended")
	}
	if (Group{ID: pgid, LeaderStart: start, NS: "another"}).End() {
		t.Fatal("a group of another PID namespace was ended")
	}
	if n := len(Members(pgid)); n != 2 {
		t.Fatalf("%d members left after ending another group", n)
	}
	if !(Group{ID: pgid, LeaderStart: start, NS: ns}).End() {
		t.Fatal("the recorded group was not ended")
	}
	cmd.Wait()
	deadline := time.Now().Add(time.Minute)
	for len(Members(pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("members of the ended group still run: %v", Members(pgid))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLockIsStaleOnlyWhenNobodyHoldsIt(t *testing.T) {
	needSight(t)
	dir := t.TempDir()
	lock := filepath.Join(dir, "index.lock")
	f, err := os.Create(lock)
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "60")
	holder.ExtraFiles = []*os.File{f}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(lock)
	if got := LockHolder(lock, st, dir); got != Alive {
		t.Fatalf("a lock file another process has open: holder %v, want alive", got)
	}
	holder.Process.Kill()
	holder.Wait()
	if got := LockHolder(lock, st, dir); got != Dead {
		t.Fatalf("a lock file nobody holds: holder %v, want dead", got)
	}
}

// A git working in the repository that started before a lock was made may
// have made it (and closed it to run a hook): the lock is in use. A git
// this very process started may be such a git (doctor's own git status,
// about to rename the index.lock doctor judges) — but not for a file this
// process alone writes, whose write just failed on the lock: there its
// long-lived gits (cat-file --batch) must not make a lock a killed git
// left look held.
func TestLockMadeBeforeAGitStartedIsHeldUnlessTheGitIsOurs(t *testing.T) {
	needSight(t)
	dir := t.TempDir()
	fakeGit := filepath.Join(t.TempDir(), "git")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	if err := os.Symlink(sleep, fakeGit); err != nil {
		t.Fatal(err)
	}
	start := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	}
	start(fakeGit, "60")
	lock := filepath.Join(dir, "HEAD.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(lock)
	if got := lockHolder(lock, st, true, []string{dir}); got != Dead {
		t.Fatalf("the lock of a file this process alone writes, beside a git it runs: holder %v, want dead", got)
	}
	if got := LockHolder(lock, st, dir); got != Alive {
		t.Fatalf("a lock beside a git this process runs, which may be about to rename it: holder %v, want alive", got)
	}
	start("sh", "-c", `"$0" 60 & wait`, fakeGit)
	deadline := time.Now().Add(time.Minute)
	for LockHolder(lock, st, dir) != Alive {
		if time.Now().After(deadline) {
			t.Fatal("a lock beside another process's git is not held")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// meanwhile is the process table of a moment in which something happened
// to a lock file while the processes were read.
type meanwhile struct {
	table
	happen func()
}

func (m meanwhile) pids() ([]int, error) {
	m.happen()
	return m.table.pids()
}

// A git that finishes while the processes are looked at lets its lock go
// (or another git makes a lock of the same name): the git is no longer
// there to be seen, but the lock that was judged is not a stale one, and
// doctor must not report it.
func TestALockLetGoWhileTheProcessesAreReadIsNotStale(t *testing.T) {
	needSight(t)
	dir := t.TempDir()
	lock := filepath.Join(dir, "HEAD.lock")
	for _, tt := range []struct {
		name   string
		happen func()
	}{
		{"let go", func() { os.Remove(lock) }},
		{"made again", func() { os.Remove(lock); os.WriteFile(lock, []byte("another\n"), 0o644) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			seen, _ := os.Lstat(lock)
			real := sys
			sys = meanwhile{table: real, happen: tt.happen}
			defer func() { sys = real }()
			if got := LockHolder(lock, seen, dir); got == Dead {
				t.Fatal("a lock that went while the processes were read was judged left by a dead git")
			}
		})
	}
}
