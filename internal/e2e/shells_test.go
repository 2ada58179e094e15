//go:build unix

// Helpers for the tests that drive real shells and terminals.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// needCommands skips the test when a program it drives is not installed
// (make test installs them where it can: as root with apt-get).
func needCommands(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not installed (make test-deps installs it)", n)
		}
	}
}

// runShell runs a shell in the main worktree with the sandbox's
// environment and returns its stdout; a hung shell fails the test.
func runShell(t *testing.T, s *testutil.Sandbox, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.Repo
	cmd.Env = append(replaceEnv(s.Env, "TERM", "xterm"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, out, stderr.String())
	}
	return string(out)
}

func testdata(name string) string {
	return filepath.Join(testutil.Root(), "internal", "e2e", "testdata", name)
}

// onTerminal runs the shell command line in the main worktree on a
// pseudo-terminal (stdout and stderr both on it unless line redirects
// them) and returns what the terminal showed, with "\r\n" as "\n",
// whatever the line's exit status.
func onTerminal(t *testing.T, s *testutil.Sandbox, line string, env ...string) string {
	t.Helper()
	needCommands(t, "script")
	cmd := exec.Command("script", "-qc", line, "/dev/null")
	cmd.Dir = s.Repo
	cmd.Env = append(replaceEnv(s.Env, "TERM", "xterm"), env...)
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	cmd.Stdin = stdin // script needs a stdin, and stops when it ends
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("script -c %q: %v\n%s", line, err, out)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}
