//go:build linux && !gitwt_noprocfs

// These tests protect how a process whose first thread has ended is seen:
// a Go program's exec (git wt exec's) runs on whichever thread its
// goroutine is on, and the kernel ends every other thread, the first one
// too, before that thread takes the first one's pid. Meanwhile /proc/<pid>
// shows a zombie without a working directory. rm looked for the users of
// a worktree moved aside in that moment, saw none, and deleted the file
// the command wrote next (the stress test's file-lost).
package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threadRoleEnv makes the test binary one of the processes these tests
// start, from init, before the tests would run.
const threadRoleEnv = "GIT_WT_PROC_TEST_THREADS"

func init() {
	switch os.Getenv(threadRoleEnv) {
	case "first-thread-ends":
		endFirstThread()
	case "mark-as-user":
		markAndListThreadNames()
	}
}

// endFirstThread keeps the process running in a second thread, with the
// file held open, and ends its first one, as an exec from another thread
// does while it runs: the goroutine of init runs on the first thread
// until it ends it.
func endFirstThread() {
	runtime.LockOSThread()
	held, err := os.Open("held")
	if err != nil {
		os.Exit(3)
	}
	defer held.Close()
	started := make(chan struct{})
	go func() {
		runtime.LockOSThread() // a thread of its own, which goes on
		close(started)
		time.Sleep(time.Hour)
	}()
	<-started
	syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // this thread only, not the process
}

// markAndListThreadNames starts threads, calls MarkAsUser, and prints the
// name of every thread of the process.
func markAndListThreadNames() {
	for range 3 {
		started := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(started)
			time.Sleep(time.Hour)
		}()
		<-started
	}
	MarkAsUser()
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		name, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/comm")
		fmt.Print(string(name))
	}
	os.Exit(0)
}

func TestAProcessWhoseFirstThreadEndedIsAliveAndWorksWhereItsThreadsDo(t *testing.T) {
	needSight(t)
	dir := t.TempDir()
	held := filepath.Join(dir, "held")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pid := grandchildIn(t, dir, []string{threadRoleEnv + "=first-thread-ends"}, os.Args[0])
	id := Self()
	id.PID = pid
	id.Start, _ = StartTime(pid)
	waitForZombieFirstThread(t, pid)

	if got := Check(id); got != Alive {
		t.Errorf("a process running on in its second thread is %v, want Alive", got)
	}
	if holders, err := sys.holders(held); !holders[pid] {
		t.Errorf("process %d, running on in its second thread, does not hold the file it opened (%v); root reads its first thread's fd folder empty", pid, err)
	}
	users, err := UsersOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.PID == pid {
			return
		}
	}
	t.Errorf("UsersOf(%s) = %+v: missing process %d, which runs in it on its second thread", dir, users, pid)
}

// waitForZombieFirstThread waits until process pid's first thread has
// ended (its state in /proc/<pid>/stat is Z) while another goes on.
func waitForZombieFirstThread(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(data)[strings.LastIndexByte(string(data), ')')+1:]); f[0] == "Z" {
			if threads, _ := strconv.Atoi(f[17]); threads < 2 {
				t.Fatalf("the process ended: %s", data)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first thread of process %d did not end: %s", pid, data)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMarkAsUserNamesEveryThread(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), threadRoleEnv+"=mark-as-user")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		names = append(names, sc.Text())
	}
	if len(names) < 4 {
		t.Fatalf("threads named %q: want at least the 4 the process started", names)
	}
	for _, n := range names {
		if n != ExecName {
			t.Fatalf("threads named %q: want every one %q, since any of them may be the one that execs", names, ExecName)
		}
	}
}
