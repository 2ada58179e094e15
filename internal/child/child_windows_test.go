// These tests protect the Windows supervisor (run under Wine by make
// test-windows): a Group command's tree — grandchildren included — ends
// with a cancel and when its git-wt dies, however it dies; what a command
// that ended by itself left running lives on, as on unix; the supervisor
// changes nothing the command reports.
package child

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// roleEnv makes the test binary one of the processes these tests start;
// pidFileEnv names the file where a command writes the pid of the
// grandchild it starts.
const (
	roleEnv    = "GIT_WT_CHILD_TEST_ROLE"
	pidFileEnv = "GIT_WT_CHILD_TEST_PIDFILE"
)

// TestMain makes the test binary a supervisor when run as one (a
// supervised command runs git-wt's own program, here the test binary),
// or one of the roles, or the program exec runs.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SuperviseCommand {
		os.Exit(Supervise(os.Args[2:]))
	}
	if code, ok := os.LookupEnv("GIT_WT_TEST_EXEC_EXIT"); ok {
		// The program exec runs (exec_windows_test.go): it prints its
		// folder and WT_TASK, then exits with the status asked for.
		dir, _ := os.Getwd()
		os.Stdout.WriteString(dir + "|" + os.Getenv("WT_TASK") + "\n")
		n, _ := strconv.Atoi(code)
		os.Exit(n)
	}
	switch os.Getenv(roleEnv) {
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "spawn": // a command that starts a grandchild and waits for it
		os.Exit(exitCodeOf(startGrandchild().Wait()))
	case "leave": // a command that starts a grandchild and ends
		startGrandchild()
		os.Exit(0)
	case "gitwt": // a git-wt that runs a supervised command that spawns
		os.Exit(exitCodeOf(Cmd{Path: os.Args[0], Env: []string{roleEnv + "=spawn"}, Group: true}.Run(context.Background())))
	case "report":
		os.Stdout.WriteString("out:" + os.Getenv("WT_SET") + "\n")
		wd, _ := os.Getwd()
		os.Stdout.WriteString("dir:" + wd + "\n")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// startGrandchild starts the test binary sleeping and writes its pid to
// the file pidFileEnv names.
func startGrandchild() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=sleep")
	if err := cmd.Start(); err != nil {
		os.Exit(5)
	}
	if err := os.WriteFile(os.Getenv(pidFileEnv), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		os.Exit(5)
	}
	return cmd
}

func exitCodeOf(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if failed, ok := err.(*Error); ok {
		return failed.ExitCode
	}
	if err != nil {
		return 6
	}
	return 0
}

// pidFile is a file for a grandchild's pid, in a folder that is not
// removed: Go's RemoveAll fails under Wine.
func pidFile(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "child-test-")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "pid")
}

// grandchild waits for the pid in file, and kills that process when the
// test ends.
func grandchild(t *testing.T, file string) int {
	t.Helper()
	for i := 0; i < 1000; i++ {
		data, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			t.Cleanup(func() { killPid(pid) })
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command did not start its child")
	return 0
}

func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
		p.Release()
	}
}

// running reports whether process pid runs.
func running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	event, err := windows.WaitForSingleObject(h, 0)
	return err == nil && event == uint32(windows.WAIT_TIMEOUT)
}

// ends fails the test unless process pid ends within 10 seconds.
func ends(t *testing.T, pid int, what string) {
	t.Helper()
	for i := 0; running(pid); i++ {
		if i == 1000 {
			t.Fatalf("the grandchild %d outlived %s", pid, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestACancelledGroupIsEndedWholeByItsJob(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	file := pidFile(t)
	done := make(chan error, 1)
	go func() {
		done <- Cmd{Path: os.Args[0], Env: []string{roleEnv + "=spawn", pidFileEnv + "=" + file},
			Group: true, GraceDelay: time.Second}.Run(ctx)
	}()
	pid := grandchild(t, file)
	if !running(pid) {
		t.Fatal("the grandchild does not run")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled command reported success")
	}
	ends(t, pid, "the cancel")
}

// However git-wt dies (here TerminateProcess, which no handler sees), the
// supervisor ends its job: the command and the grandchild it started.
func TestAGroupEndsWhenItsGitWtDies(t *testing.T) {
	file := pidFile(t)
	gitwt := exec.Command(os.Args[0])
	gitwt.Env = append(os.Environ(), roleEnv+"=gitwt", pidFileEnv+"="+file)
	if err := gitwt.Start(); err != nil {
		t.Fatal(err)
	}
	pid := grandchild(t, file)
	gitwt.Process.Kill()
	gitwt.Wait()
	ends(t, pid, "its git-wt")
}

// As a unix group's processes do, what a command left running when it
// ended by itself lives on: the supervisor lifts the kill on close.
func TestWhatACommandLeftRunningLivesOn(t *testing.T) {
	file := pidFile(t)
	if err := (Cmd{Path: os.Args[0], Env: []string{roleEnv + "=leave", pidFileEnv + "=" + file}, Group: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := grandchild(t, file)
	time.Sleep(200 * time.Millisecond)
	if !running(pid) {
		t.Fatal("what the command left running was killed when it ended")
	}
}

// The supervisor is invisible to its command and to git-wt: the same
// output, environment, directory and exit status as without it.
func TestASupervisedCommandSeesAndEndsAsWithout(t *testing.T) {
	dir, err := os.MkdirTemp("", "child-test-")
	if err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	var codes [2]int
	for i, group := range []bool{false, true} {
		var out bytes.Buffer
		err := Cmd{Path: os.Args[0], Dir: dir, Env: []string{roleEnv + "=report", "WT_SET=1"}, Stdout: &out, Group: group}.Run(context.Background())
		outs[i], codes[i] = out.String(), exitCodeOf(err)
	}
	if outs[0] != outs[1] || codes[0] != 3 || codes[1] != 3 || !strings.Contains(outs[0], "out:1") {
		t.Fatalf("without the supervisor: %d\n%s\nwith it: %d\n%s", codes[0], outs[0], codes[1], outs[1])
	}
}
