//go:build unix

// These helpers start real processes together, wait for them without sleeping
// on timing, and read what the binary left in git, for the tests beside them.
package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// startIn starts a long-running command with dir as its working directory.
func startIn(t *testing.T, dir string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// holdFlock holds the flock on the file at path (made, with its folder,
// if missing) from another process, as another git-wt would, until the
// test ends or the returned process is killed.
func holdFlock(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	holder := startIn(t, filepath.Dir(path), "flock", "-o", path, "sleep", "60")
	waitFor(t, func() bool { return exec.Command("flock", "-n", path, "true").Run() != nil })
	return holder
}

// withPath returns a copy of the sandbox whose PATH starts with dir.
func withPath(s *testutil.Sandbox, dir string) *testutil.Sandbox {
	c := *s
	c.Env = replaceEnv(s.Env, "PATH", testutil.BinDir(s.T)+":"+dir+":"+os.Getenv("PATH"))
	return &c
}

// replaceEnv sets key=value in a copy of env.
func replaceEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// startTogether starts cmds so that they begin their real work at the same
// instant: each waits on a fifo until all are waiting, then all go at once.
// It returns after starting them; wait on each cmd.
func startTogether(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Held open for writing, the fifo blocks each reader in read(2) until
	// it is closed: then every reader sees end-of-file together.
	gate, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		c.Args = append([]string{"sh", "-c", `read _ < "$0"; exec "$@"`, fifo, c.Path}, c.Args[1:]...)
		c.Path = "/bin/sh"
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		waitFor(t, func() bool { return hasOpen(c.Process.Pid, fifo) })
	}
	gate.Close()
}

// hasOpen reports whether process pid has path open.
func hasOpen(pid int, path string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); target == path {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exitCode waits for cmd and returns its exit status.
func exitCode(cmd *exec.Cmd) int {
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// consistent checks git's own view after a burst: every record has its
// worktree on its branch, every task branch and worktree has a record, and
// nothing is half-registered. It returns the number of tasks.
func consistent(t *testing.T, s *testutil.Sandbox) int {
	t.Helper()
	records := strings.Fields(s.Git(s.Repo, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/git-wt/tasks/"))
	branches := strings.Fields(s.Git(s.Repo, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/heads/wt/"))
	wts := s.Git(s.Repo, "worktree", "list", "--porcelain") + "\n"
	if strings.Contains(wts, "prunable") {
		t.Fatalf("half-registered worktrees:\n%s", wts)
	}
	if len(branches) != len(records) || strings.Count(wts, "worktree ") != len(records)+1 {
		t.Fatalf("%d records, %d task branches, worktrees:\n%s", len(records), len(branches), wts)
	}
	for _, slug := range records {
		var rec struct{ Path, Branch, State string }
		json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/"+slug)), &rec)
		if rec.State != "active" || !strings.Contains(wts, "worktree "+rec.Path+"\n") || !strings.Contains(wts, "branch refs/heads/"+rec.Branch+"\n") {
			t.Fatalf("record %s (%+v) does not match git's worktrees:\n%s", slug, rec, wts)
		}
	}
	return len(records)
}

// readRecord reads the record of slug as a JSON object.
func readRecord(t *testing.T, s *testutil.Sandbox, slug string) map[string]any {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/"+slug)), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// writeRecord replaces the record of slug, as a hand edit would.
func writeRecord(t *testing.T, s *testutil.Sandbox, slug string, rec map[string]any) {
	t.Helper()
	data, _ := json.Marshal(rec)
	path := filepath.Join(t.TempDir(), "rec.json")
	os.WriteFile(path, data, 0o644)
	oid := s.Git(s.Repo, "hash-object", "-w", path)
	s.Git(s.Repo, "update-ref", "refs/git-wt/tasks/"+slug, oid)
}

// system runs a command and returns its combined output.
func system(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// withVars returns a copy of the sandbox with more environment variables.
func withVars(s *testutil.Sandbox, kvs ...string) *testutil.Sandbox {
	c := *s
	c.Env = append(append([]string(nil), s.Env...), kvs...)
	return &c
}

// commitFile writes a file in the worktree at dir and commits it there.
func commitFile(s *testutil.Sandbox, dir, name, content, msg string) string {
	s.T.Helper()
	s.Write(filepath.Join(dir, name), content)
	s.Git(dir, "add", "--", name)
	s.Git(dir, "commit", "-q", "-m", msg)
	return s.Git(dir, "rev-parse", "HEAD")
}

// exitStatus is the exit status of a finished command, -1 if a signal
// ended it.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode()
	}
	return 0
}

// gitSaysItIs returns a copy of the sandbox whose git reports the given
// version and otherwise is the real git.
func gitSaysItIs(s *testutil.Sandbox, version string) *testutil.Sandbox {
	shim := filepath.Join(filepath.Dir(s.Repo), "git-"+version)
	s.Write(filepath.Join(shim, "git"), "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'git version "+version+"'; exit 0; fi\nexec /usr/bin/git \"$@\"\n")
	os.Chmod(filepath.Join(shim, "git"), 0o755)
	return withPath(s, shim)
}

// smallDisk mounts a tmpfs of size next to the sandbox's repository (a full
// disk on demand); it skips the test unless it runs as root.
func smallDisk(t *testing.T, s *testutil.Sandbox, size string) string {
	t.Helper()
	if !testutil.IsRoot() {
		t.Skip("mounting a small tmpfs needs root")
	}
	small := filepath.Join(filepath.Dir(s.Repo), "small")
	os.MkdirAll(small, 0o755)
	if out, err := system("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", small); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { system("umount", small) })
	return small
}
