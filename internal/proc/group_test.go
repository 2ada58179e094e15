//go:build unix

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
	return startGroupOf(t, "sleep 60 & wait")
}

// startGroupOf starts script in a process group of its own, and waits
// for the child it starts.
func startGroupOf(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	needSight(t)
	cmd := exec.Command("sh", "-c", script)
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
	wd, _ := os.Getwd()
	// The leader sh stands for git-wt's supervisor here: its arguments,
	// its folder, and a parent (this test) that is not the recorded one.
	g := Group{ID: pgid, LeaderStart: start, NS: ns, LeaderArgs: []string{"sh", "-c"}, Parent: -1, Dir: wd}
	other := func(change func(*Group)) Group { c := g; change(&c); return c }
	for _, tt := range []struct {
		name    string
		g       Group
		wantErr bool
	}{
		{"a leader that started at another time", other(func(g *Group) { g.LeaderStart = "1" }), false},
		{"another PID namespace", other(func(g *Group) { g.NS = "another" }), false},
		{"a leader that is not the supervisor", other(func(g *Group) { g.LeaderArgs = []string{"git-wt", "__supervise", "1"} }), true},
		{"a leader with no recorded start", other(func(g *Group) { g.LeaderStart = "" }), false},
		{"a leader still the child of its git-wt", other(func(g *Group) { g.Parent = os.Getpid() }), true},
		{"a leader in another folder", other(func(g *Group) { g.Dir = t.TempDir() }), true},
	} {
		ended, err := tt.g.End()
		if ended || (err != nil) != tt.wantErr {
			t.Errorf("%s: ended %v, error %v (want one: %v)", tt.name, ended, err, tt.wantErr)
		}
	}
	if n := len(Members(pgid)); n != 2 {
		t.Fatalf("%d members left after ending another group", n)
	}
	if ended, err := g.End(); !ended || err != nil {
		t.Fatalf("the recorded group was not ended: %v", err)
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

// A group whose leader is gone cannot be told from another by its
// leader: it is ended only when each of its processes carries GroupEnv
// with its id, as the commands git-wt's supervisor runs do; else it is
// left alone, and End says so (SPEC §19: a record names the group).
func TestGroupWithoutItsLeader(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		ended        bool
	}{
		{"unmarked", "sleep 60 & wait", false},
		{"marked", "export " + GroupEnv + "=$$; sleep 60 & wait", true},
		{"marked with another group", "export " + GroupEnv + "=1$$; sleep 60 & wait", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := startGroupOf(t, tc.script)
			pgid := cmd.Process.Pid
			start, _ := StartTime(pgid)
			wd, _ := os.Getwd()
			cmd.Process.Kill()
			cmd.Wait()
			ended, err := Group{ID: pgid, LeaderStart: start, NS: Self().PIDNS, LeaderArgs: []string{"sh", "-c"}, Parent: -1, Dir: wd}.End()
			if ended != tc.ended || (err == nil) != tc.ended {
				t.Fatalf("ended %v, error %v; want ended %v", ended, err, tc.ended)
			}
			if !tc.ended && len(Members(pgid)) != 1 {
				t.Fatalf("members left: %v, want the leader's child", Members(pgid))
			}
		})
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
