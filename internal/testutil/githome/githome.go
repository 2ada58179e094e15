// Package githome gives a package's own tests a hermetic git to run
// directly: an empty home folder, no system configuration, a fixed
// identity. testutil's Sandbox needs the built git-wt and imports most of
// the packages; the lower packages' tests (git, machine) use this.
package githome

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// New points git, for the rest of the test, at a new empty home folder,
// its links resolved (the paths git prints are compared with it), with
// no system configuration and a fixed identity, and returns it. Without
// git the test is skipped.
func New(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", root)
	// The home os.UserHomeDir and the agent runners use on Windows
	// (madeby), and no Codex home elsewhere: a test that makes worktrees
	// under the runners' roots makes them in root.
	t.Setenv("USERPROFILE", root)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "t")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "t@example.com")
	}
	return root
}

// Git runs git in dir; the test fails when git does.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
