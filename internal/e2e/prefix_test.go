//go:build unix

// These tests protect wt.branchPrefix: task branches are found by it
// whatever it ends in (gc and doctor clean up leftovers under "acode-task-"
// as under "wt/"), and it may not reach into git-wt's own refs/git-wt/.
package e2e

import (
	"encoding/json"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

func TestLeftoverBranchesAreFoundWithAPrefixWithoutSlash(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.branchPrefix", "acode-task-")
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	s.MustWT("new", "-q", "kept")
	s.Git(s.Repo, "branch", "acode-task-leftover")
	s.Git(s.Repo, "branch", "acode-taskforce") // not under the prefix

	r := s.WT("doctor", "--json")
	var problems []struct{ Kind, Branch string }
	if err := json.Unmarshal([]byte(r.Stdout), &problems); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r)
	}
	var found []string
	for _, p := range problems {
		if p.Kind == string(task.LeftoverBranch) {
			found = append(found, p.Branch)
		}
	}
	if len(found) != 1 || found[0] != "acode-task-leftover" {
		t.Fatalf("doctor found the leftover branches %q, want [acode-task-leftover]:\n%s", found, r)
	}
	s.MustWT("gc")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/acode-task-leftover") {
		t.Fatal("gc kept the leftover task branch")
	}
	for _, b := range []string{"acode-task-kept", "acode-taskforce", "main"} {
		if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+b) {
			t.Errorf("gc deleted %s", b)
		}
	}
}
