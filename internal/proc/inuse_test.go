//go:build unix

// These tests protect UsersOf: a folder reached through a symlink (macOS's
// /tmp is /private/tmp) still shows the processes working below it, whose
// working directories the table gives resolved.
package proc

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestUsersOfAFolderReachedThroughASymlink(t *testing.T) {
	platform.RequireSymlinks(t)
	needSight(t)
	base := t.TempDir()
	real := filepath.Join(base, "real")
	sub := filepath.Join(real, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	sleeper := sleepIn(t, sub)
	users, err := UsersOf(link)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.PID == sleeper {
			return
		}
	}
	t.Fatalf("UsersOf(%s) = %+v, missing the sleep (pid %d) in %s", link, users, sleeper, sub)
}

func TestUsersOfEachAnswersEveryFolderFromOneReading(t *testing.T) {
	needSight(t)
	a, b, none := t.TempDir(), t.TempDir(), t.TempDir()
	sleeper := sleepIn(t, a)
	users, err := UsersOfEach([]string{a, b, none, filepath.Join(none, "gone")})
	if err != nil {
		t.Fatal(err)
	}
	pids := map[int]bool{}
	for _, u := range users[0] {
		pids[u.PID] = true
	}
	if len(users) != 4 || !pids[sleeper] || len(users[1])+len(users[2])+len(users[3]) != 0 {
		t.Errorf("got %+v: want the sleep (pid %d) in the first folder only", users, sleeper)
	}
}

// sleepIn starts a sleep working in dir as a grandchild of this process
// and returns its pid; it is killed when the test ends.
func sleepIn(t *testing.T, dir string) int {
	t.Helper()
	return grandchildIn(t, dir, nil, "sleep", "60")
}

// grandchildIn starts argv working in dir, with env added to this
// process's environment, as a grandchild of this process (UsersOf leaves
// this process's own children out, as its own gits) and returns its pid;
// it is killed when the test ends.
func grandchildIn(t *testing.T, dir string, env []string, argv ...string) int {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `"$@" & echo $!; wait`, "sh"}, argv...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	t.Cleanup(func() { kill(pid, syscall.SIGKILL) })
	return pid
}
