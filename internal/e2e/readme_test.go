// These tests protect the README: its agent workflow runs as written.
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
