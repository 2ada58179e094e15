//go:build unix

// This test protects the content of the commit an agent runner starts a
// worktree from: a base_commit that is not on the branch checked out where
// the runner works has that branch as its base (SPEC §13), and the commits
// between their merge base and it count as the task's own, so that sync
// never drops their content; the hook says so.
package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestAgentHookBaseCommitOffTheBranchKeepsItsContent(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "switch", "-q", "-c", "other")
	off := commitFile(s, s.Repo, "only-on-other.txt", "kept\n", "a commit main does not have")
	s.Git(s.Repo, "switch", "-q", "main")
	commitFile(s, s.Repo, "later.txt", "later\n", "main moves on")
	r := hook(t, s, s.Repo, "claude-create", `{"name":"off","base_commit":"`+off+`","cwd":"`+s.Repo+`"}`)
	path := strings.TrimSuffix(r.Stdout, "\n")
	if r.Code != 0 || !strings.Contains(r.Stderr, "not on the branch main") {
		t.Fatalf("the hook did not say the base is off the branch: %s", r)
	}
	// SPEC §13: the base is the branch checked out where the runner works.
	if rec := readRecord(t, s, "off"); rec["base"] != "refs/heads/main" {
		t.Errorf("the task's base is %v, want refs/heads/main", rec["base"])
	}
	commitFile(s, path, "work.txt", "work\n", "the agent's work")
	s.MustWT("sync", "off")
	if !s.GitOK(s.Repo, "merge-base", "--is-ancestor", "main", "wt/off") {
		t.Error("sync did not bring the task onto main")
	}
	for _, f := range []string{"only-on-other.txt", "work.txt"} {
		if !testutil.Exists(filepath.Join(path, f)) {
			t.Errorf("after sync the task lost %s", f)
		}
	}
	if show := s.Git(s.Repo, "show", "wt/off:only-on-other.txt"); show != "kept" {
		t.Errorf("the task's branch lost the base commit's content: %q", show)
	}
}
