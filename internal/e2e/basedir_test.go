//go:build unix

// These tests protect where a base dir may be (SPEC §14): never in .git,
// the main worktree, inside another worktree or on a tracked path (around
// the main worktree is the sibling layout: sharedbase_test.go); a .gitwt that breaks a rule, or names an untrusted place, is
// ignored with a warning, the user's own config is refused (exit 2); and a
// base dir inside the main worktree leaves the main worktree clean.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestBaseDirRulesRefuseTheUsersConfig(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write("docs/guide.md", "guide\n")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "docs")
	inside := s.MustWT("new", "-q", "other").Out()
	for _, dir := range []string{
		".git/refs",                     // inside git's own folder
		filepath.Join(s.Repo, ".git"),   // git's own folder
		".",                             // the main worktree
		"docs",                          // a tracked folder
		"docs/guide.md",                 // a tracked file
		filepath.Join(inside, "nested"), // inside another worktree
		filepath.Join(inside),           // another worktree
	} {
		s.Git(s.Repo, "config", "wt.baseDir", dir)
		r := s.WT("new", "T")
		if r.Code != 2 || !strings.Contains(r.Stderr, "wt.baseDir") {
			t.Errorf("wt.baseDir = %s: %s", dir, r)
		}
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Error("a refused new left its branch")
	}
	if !s.GitOK(s.Repo, "fsck", "--no-progress") {
		t.Error("git fsck fails after the refusals")
	}
	s.Git(s.Repo, "config", "wt.baseDir", "docs/worktrees") // a tracked folder's untracked child
	if got := s.MustWT("new", "-q", "T").Out(); got != filepath.Join(s.Repo, "docs", "worktrees", "T") {
		t.Errorf("wt.baseDir = docs/worktrees: new made %s", got)
	}
}

func TestGitwtBaseDirInsideGitIsIgnored(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(".gitwt", "[wt]\n\tbaseDir = .git/refs\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "team defaults")
	s.MustWT("trust") // trust does not lift the rules
	r := s.MustWT("new", "T")
	want := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
	if r.Out() != want || !strings.Contains(r.Stderr, "warning: ignored wt.baseDir") {
		t.Fatalf("new with .gitwt baseDir = .git/refs: %s", r)
	}
	if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Contains(wts, filepath.Join(s.Repo, ".git")) {
		t.Errorf("a worktree went inside .git:\n%s", wts)
	}
	if !s.GitOK(s.Repo, "fsck", "--no-progress") {
		t.Error("git fsck fails")
	}
}

func TestUntrustedGitwtBaseDirOnlyInItsPlaces(t *testing.T) {
	s := testutil.NewSandbox(t)
	parent := filepath.Dir(s.Repo)
	def := filepath.Join(parent, "repo-worktrees")
	cases := []struct {
		baseDir, want string
		warns         bool
	}{
		{"../elsewhere", filepath.Join(def, "a"), true},
		{filepath.Join(t.TempDir(), "abs"), filepath.Join(def, "b"), true},
		{"../repo-shared", filepath.Join(parent, "repo-shared", "c"), false},
		{".agents/worktrees", filepath.Join(s.Repo, ".agents", "worktrees", "d"), false},
	}
	for i, tc := range cases {
		s.Write(".gitwt", "[wt]\n\tbaseDir = "+tc.baseDir+"\n")
		id := string(rune('a' + i))
		r := s.MustWT("new", id)
		if r.Out() != tc.want || strings.Contains(r.Stderr, "warning: ignored wt.baseDir") != tc.warns {
			t.Errorf(".gitwt baseDir = %s: %s", tc.baseDir, r)
		}
	}
	// Trusted, the file may name any place the rules allow.
	s.Write(".gitwt", "[wt]\n\tbaseDir = ../elsewhere\n")
	s.MustWT("trust")
	if got := s.MustWT("new", "-q", "e").Out(); got != filepath.Join(parent, "elsewhere", "e") {
		t.Errorf("trusted .gitwt baseDir = ../elsewhere: new made %s", got)
	}
}

func TestBranchPrefixMayNotReachIntoGitWtsRefs(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.branchPrefix", "git-wt/tasks/")
	if r := s.WT("new", "T"); r.Code != 2 || !strings.Contains(r.Stderr, "wt.branchPrefix") {
		t.Fatalf("wt.branchPrefix = git-wt/tasks/ in the user's config: %s", r)
	}
	s.Git(s.Repo, "config", "--unset", "wt.branchPrefix")
	s.Write(".gitwt", "[wt]\n\tbranchPrefix = git-wt/\n")
	r := s.MustWT("new", "T")
	if !strings.Contains(r.Stderr, "warning: ignored wt.branchPrefix") {
		t.Errorf("no warning for the .gitwt's branchPrefix: %s", r)
	}
	if got := s.Git(r.Out(), "symbolic-ref", "HEAD"); got != "refs/heads/wt/T" {
		t.Errorf("the task's branch is %s", got)
	}
}

func TestBaseDirInsideTheMainWorktreeKeepsItClean(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", ".acode/worktrees")
	path := s.MustWT("new", "-q", "T").Out()
	s.MustWT("new", "-q", "U")
	if st := s.Git(s.Repo, "status", "--porcelain"); st != "" {
		t.Fatalf("the main worktree is not clean:\n%s", st)
	}
	exclude := filepath.Join(s.Repo, ".git", "info", "exclude")
	data, _ := os.ReadFile(exclude)
	if n := strings.Count(string(data), "\n/.acode/worktrees/\n"); n != 1 {
		t.Fatalf("info/exclude holds the base dir's line %d times:\n%s", n, data)
	}
	commitFile(s, path, "work.txt", "work\n", "work")
	if r := s.WT("merge", "T"); r.Code != 0 {
		t.Fatalf("merge: %s", r)
	}
	if !testutil.Exists(filepath.Join(s.Repo, "work.txt")) {
		t.Fatal("the merge did not reach the main worktree")
	}
	// The setting goes away: so does the line, at the next new.
	s.Git(s.Repo, "config", "--unset", "wt.baseDir")
	s.MustWT("new", "-q", "V")
	if data, _ := os.ReadFile(exclude); strings.Contains(string(data), "acode") {
		t.Fatalf("info/exclude still holds the old base dir:\n%s", data)
	}
}
