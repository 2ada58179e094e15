//go:build unix

// These tests protect the policies every non-git child of git-wt runs
// under: the environment it sees, how a failure is reported, that a
// command given its own group does not outlive a cancel, and that the
// supervisor changes nothing a command sees or reports.
package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/proc"
)

// TestMain makes the test binary a supervisor when run as one: a
// supervised command runs git-wt's own program, here the test binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SuperviseCommand {
		os.Exit(Supervise(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func TestEnvDropsGitsPointersAndSetReplaces(t *testing.T) {
	t.Setenv("GIT_DIR", "/elsewhere/.git")
	t.Setenv("GIT_INDEX_FILE", "/elsewhere/index")
	t.Setenv("WT_TASK", "stale")
	t.Setenv("HOME_KEPT", "yes")
	env := Env("WT_TASK=fresh")
	joined := "\n" + strings.Join(env, "\n") + "\n"
	for _, gone := range []string{"GIT_DIR=", "GIT_INDEX_FILE=", "WT_TASK=stale"} {
		if strings.Contains(joined, "\n"+gone) {
			t.Errorf("the child's environment still has %s", gone)
		}
	}
	if strings.Count(joined, "\nWT_TASK=") != 1 || !strings.Contains(joined, "\nWT_TASK=fresh\n") || !strings.Contains(joined, "\nHOME_KEPT=yes\n") {
		t.Errorf("environment:\n%s", joined)
	}
}

func TestRunReportsTheExitStatusAndTheLastLineOfStderr(t *testing.T) {
	var out bytes.Buffer
	err := Cmd{Path: "sh", Args: []string{"-c", "echo data; echo one >&2; echo two >&2; exit 3"}, Stdout: &out}.Run(context.Background())
	var failed *Error
	if !errors.As(err, &failed) || failed.ExitCode != 3 || failed.Stderr != "two" || out.String() != "data\n" {
		t.Fatalf("got %v (%+v), stdout %q", err, failed, out.String())
	}
	if err := (Cmd{Path: "true"}).Run(context.Background()); err != nil {
		t.Fatalf("true failed: %v", err)
	}
}

func TestACancelledGroupIsEndedWhole(t *testing.T) {
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprint("supervised=", supervised), func(t *testing.T) { cancelledGroupIsEndedWhole(t, supervised) })
	}
}

func cancelledGroupIsEndedWhole(t *testing.T, supervised bool) {
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := t.TempDir() + "/pid"
	done := make(chan error, 1)
	go func() {
		done <- Cmd{Path: "sh", Args: []string{"-c", "sleep 30 & echo $! > " + pidFile + "; wait"},
			Group: true, Supervised: supervised, GraceDelay: time.Second}.Run(ctx)
	}()
	var pid int
	for i := 0; i < 200 && pid == 0; i++ {
		time.Sleep(10 * time.Millisecond)
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	if pid == 0 {
		t.Fatal("the command did not start its child")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled command reported success")
	}
	for i := 0; alive(pid); i++ {
		if i == 100 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the group's other process %d outlived the cancel", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The supervisor is invisible to its command and to git-wt: the same
// output, environment (but proc.GroupEnv, by which a group whose
// supervisor was killed is still told as git-wt's), directory and exit
// status as without it, and the same error for a program that cannot be
// found.
func TestASupervisedCommandSeesAndEndsAsWithout(t *testing.T) {
	t.Setenv("WT_KEPT", "yes")
	dir := t.TempDir()
	for _, tc := range []struct{ name, path, script string }{
		{"environment", "sh", "env | grep -v '^" + proc.GroupEnv + "=' | sort; pwd; echo $0"},
		{"status", "sh", "echo out; echo last >&2; exit 3"},
		{"SIGTERM", "sh", "kill -TERM $$"},
		{"SIGKILL", "sh", "kill -KILL $$"},
		{"missing", "no-such-program-here", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs [2]string
			var errs [2]error
			for i, supervised := range []bool{false, true} {
				var out bytes.Buffer
				errs[i] = Cmd{Path: tc.path, Args: []string{"-c", tc.script}, Dir: dir, Env: []string{"WT_SET=1"}, Stdout: &out,
					Group: true, Supervised: supervised, GraceDelay: time.Second}.Run(context.Background())
				outs[i] = out.String()
			}
			if outs[0] != outs[1] || fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) || exitCode(errs[0]) != exitCode(errs[1]) {
				t.Fatalf("without the supervisor: %v (%d)\n%s\nwith it: %v (%d)\n%s", errs[0], exitCode(errs[0]), outs[0], errs[1], exitCode(errs[1]), outs[1])
			}
		})
	}
}

// An interrupt's SIGTERM reaches the whole group, the supervisor too: the
// supervisor outlives it, and git-wt sees the status the command chose.
func TestACancelledCommandEndsAsItChooses(t *testing.T) {
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprint("supervised=", supervised), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			ready := t.TempDir() + "/ready"
			done := make(chan error, 1)
			go func() {
				done <- Cmd{Path: "sh", Args: []string{"-c", "trap 'exit 7' TERM; touch " + ready + "; while :; do sleep 0.01; done"},
					Group: true, Supervised: supervised, GraceDelay: 10 * time.Second}.Run(ctx)
			}()
			for i := 0; ; i++ {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if i == 1000 {
					t.Fatal("the command did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err := <-done; exitCode(err) != 7 {
				t.Fatalf("got %v, want the command's exit status 7", err)
			}
		})
	}
}

// Run by hand, outside a group of its own, the supervisor would kill the
// group it is in (a shell's job) when its parent dies: it refuses to run.
func TestTheSupervisorRunsOnlyAsALeader(t *testing.T) {
	marker := t.TempDir() + "/ran"
	cmd := exec.Command(os.Args[0], SuperviseCommand, strconv.Itoa(os.Getpid()), "/bin/sh", "sh", "-c", "touch "+marker)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "for git-wt's own use") {
		t.Fatalf("got %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
}

// exitCode is the exit status an *Error carries, -2 for another error.
func exitCode(err error) int {
	var failed *Error
	if errors.As(err, &failed) {
		return failed.ExitCode
	}
	return -2
}

// alive reports whether pid runs (a zombie has exited).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
