// Helpers for the tests that drive real shells and terminals.
package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

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
