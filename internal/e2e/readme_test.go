//go:build unix

// These tests protect the README: its quick start works on first use and
// its agent workflow runs as written.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// readmeScript is the first sh block after the README heading.
func readmeScript(t *testing.T, heading string) string {
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+heading+"\n")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	script, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("the README has no sh block under %q", heading)
	}
	return script
}

func TestReadmeAgentWorkflowRuns(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	remote := withRemote(s)
	gh, log, _ := withGh(t, s)
	cmd := exec.Command("sh", "-ex", "-c", readmeScript(t, "## Agent workflow"))
	cmd.Dir, cmd.Env = s.Repo, gh.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's agent workflow failed: %v\n%s", err, out)
	}
	if s.Git(s.Repo, "show", "main:fix.txt") != "the fix" || s.Git(s.Repo, "log", "-1", "--format=%s", "main") != "Fix the bug" {
		t.Fatal("main does not have the agent's commit")
	}
	if !s.GitOK(remote, "rev-parse", "--verify", "-q", "refs/heads/wt/TASK-123") {
		t.Fatal("the branch was not pushed")
	}
	if calls, _ := os.ReadFile(log); !strings.HasPrefix(string(calls), "pr create --head wt/TASK-123") {
		t.Fatalf("gh was called with %q", calls)
	}
	gone(t, s, "TASK-123", filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "TASK-123"))
}

// TestReadmeQuickStartWorksOnFirstUse runs the README's quick start as a
// newcomer who is not root would: in a shell whose PATH has neither
// git-wt nor ~/.local/bin, install.sh and then git wt new demo must work,
// and install.sh must print the PATH line for the shells to come.
func TestReadmeQuickStartWorksOnFirstUse(t *testing.T) {
	t.Parallel() // mostly waiting on the build
	s := testutil.NewSandbox(t)
	path := os.Getenv("PATH")
	if found, err := exec.LookPath("git-wt"); err == nil {
		t.Skipf("%s is on PATH: a first use cannot be shown", found)
	}
	var script []string
	for _, l := range strings.Split(readmeScript(t, "## Quick start"), "\n") {
		if strings.HasPrefix(l, "make test") {
			continue // the tests are running
		}
		// install.sh is run from git-wt's source tree, git wt new in the
		// sandbox's repository.
		script = append(script, strings.ReplaceAll(l, "./install.sh", filepath.Join(testutil.Root(), "install.sh")))
	}
	env := replaceEnv(buildEnv(t, s), "PATH", path)
	if testutil.IsRoot() {
		env = append(env, "PREFIX="+filepath.Join(s.Home, ".local")) // as for anyone else
	}
	cmd := exec.Command("sh", "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir, cmd.Env = s.Repo, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's quick start failed: %v\n%s", err, out)
	}
	bin := filepath.Join(s.Home, ".local", "bin")
	if !strings.Contains(string(out), bin+" is not on your PATH") || !strings.Contains(string(out), `export PATH="`+bin+`:$PATH"`) {
		t.Errorf("install.sh does not say how to put git-wt on PATH:\n%s", out)
	}
	if !testutil.Exists(filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "demo", "README.md")) {
		t.Fatalf("no worktree for demo:\n%s", out)
	}
}
