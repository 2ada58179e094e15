//go:build unix

// These tests protect branch ownership (SPEC §4): removal deletes only a
// branch git-wt created, never one that existed before its task, even with
// --force, and records written before git-wt said so are judged by name.
package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// rmJSON runs rm --json and returns its one task's outcomes.
func rmJSON(t *testing.T, s *testutil.Sandbox, args ...string) (worktree, branch string) {
	t.Helper()
	r := s.WT(append([]string{"rm", "--json"}, args...)...)
	var out []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); r.Code != 0 || err != nil || len(out) != 1 {
		t.Fatalf("rm --json %v: %v\n%s", args, err, r)
	}
	w, _ := out[0]["worktree_outcome"].(string)
	b, _ := out[0]["branch_outcome"].(string)
	return w, b
}

func TestRmForceKeepsABranchThatExistedBeforeTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "feature")
	path := s.MustWT("new", "T", "--branch", "feature").Out()
	commit := commitFile(s, path, "mine.txt", "unmerged", "unmerged work")
	s.Write(filepath.Join(path, "scratch.txt"), "to discard")
	w, b := rmJSON(t, s, "--force", "T")
	if w != "deleted" || b != "kept_not_created" {
		t.Fatalf("rm --force of a task on a branch that existed: worktree %s, branch %s", w, b)
	}
	if got := s.Git(s.Repo, "rev-parse", "refs/heads/feature"); got != commit {
		t.Fatalf("branch feature is at %q, want %s", got, commit)
	}
	gone(t, s, "T", path)
}

func TestRmKeepsAMergedBranchThatExistedBeforeTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "feature")
	path := s.MustWT("new", "T", "--branch", "feature").Out()
	commitFile(s, path, "mine.txt", "merged", "merged work")
	s.Git(s.Repo, "merge", "-q", "--no-ff", "-m", "merge", "refs/heads/feature")
	if _, b := rmJSON(t, s, "T"); b != "kept_not_created" {
		t.Fatalf("rm of a task on a merged branch that existed: branch %s", b)
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/feature") {
		t.Fatal("rm deleted a merged branch that git-wt did not create")
	}
	// A branch git-wt created still goes, merged or forced.
	path = s.MustWT("new", "U").Out()
	commitFile(s, path, "u.txt", "u", "u")
	if rec := readRecord(t, s, "U"); rec["branch_created"] != true {
		t.Fatalf("new did not record that it created the branch: %v", rec)
	}
	if _, b := rmJSON(t, s, "--force", "U"); b != "deleted" || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/U") {
		t.Fatalf("rm --force of a git-wt branch: branch %s", b)
	}
}

func TestRmOfARecordWrittenBeforeBranchOwnership(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "feature")
	s.MustWT("new", "Old", "--branch", "feature")
	s.MustWT("new", "Mine")
	for _, slug := range []string{"Old", "Mine"} {
		rec := readRecord(t, s, slug)
		delete(rec, "branch_created")
		writeRecord(t, s, slug, rec)
	}
	// Without branch_created, a branch named as git-wt names a task's is
	// git-wt's; any other is the user's.
	if _, b := rmJSON(t, s, "--force", "Old"); b != "kept_not_created" {
		t.Fatalf("legacy record on branch feature: branch %s", b)
	}
	if _, b := rmJSON(t, s, "Mine"); b != "deleted" {
		t.Fatalf("legacy record on branch wt/Mine: branch %s", b)
	}
}
