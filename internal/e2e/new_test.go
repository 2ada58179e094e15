//go:build unix

// These tests protect `git wt new`: names, places, idempotence, escapes
// refused, and nothing left behind when it fails.
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestNewPrintsOnlyThePathAndMakesBranchAndRecord(t *testing.T) {
	s := testutil.NewSandbox(t)
	r := s.MustWT("new", "TASK-123")
	want := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "TASK-123")
	if r.Stdout != want+"\n" {
		t.Fatalf("stdout = %q, want the path %q", r.Stdout, want)
	}
	if got := s.Git(want, "symbolic-ref", "HEAD"); got != "refs/heads/wt/TASK-123" {
		t.Fatalf("worktree HEAD = %q", got)
	}
	if !testutil.Exists(filepath.Join(want, "README.md")) {
		t.Fatal("the worktree is not checked out")
	}
	if typ := s.Git(s.Repo, "cat-file", "-t", "refs/git-wt/tasks/TASK-123"); typ != "blob" {
		t.Fatalf("record type = %q, want blob", typ)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/TASK-123")), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["state"] != "active" || rec["task"] != "TASK-123" || rec["path"] != want || rec["branch"] != "wt/TASK-123" {
		t.Fatalf("record = %v", rec)
	}
	if s.GitOK(s.Repo, "reflog", "exists", "refs/git-wt/tasks/TASK-123") {
		t.Fatal("records must not have a reflog")
	}
	if s.Git(want, "status", "--porcelain") != "" {
		t.Fatal("a new worktree must be clean")
	}
}

// The default base is the main worktree's branch wherever new runs: from
// inside a task whose branch has moved on, the new task starts from main.
func TestNewFromInsideATaskStartsFromTheMainWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	a := s.MustWT("new", "A").Out()
	s.Write(filepath.Join(a, "a.txt"), "a\n")
	s.Git(a, "add", "a.txt")
	s.Git(a, "commit", "-q", "-m", "work in A")
	r := s.WTIn(a, "new", "B")
	if r.Code != 0 {
		t.Fatalf("new from inside a task: %s", r)
	}
	if got, main := s.Git(r.Out(), "rev-parse", "HEAD"), s.Git(s.Repo, "rev-parse", "main"); got != main {
		t.Fatalf("B starts at %s, want main's %s (not A's commit)", got, main)
	}
}

func TestNewTwiceReturnsTheSamePath(t *testing.T) {
	s := testutil.NewSandbox(t)
	first := s.MustWT("new", "TASK-1").Out()
	second := s.MustWT("new", "TASK-1")
	if second.Out() != first {
		t.Fatalf("second new printed %q, want %q", second.Out(), first)
	}
	if n := len(strings.Split(s.Git(s.Repo, "worktree", "list", "--porcelain"), "worktree ")); n != 3 {
		t.Fatalf("want 2 worktrees, git lists %d entries", n-1)
	}
}

func TestNewFlagsBeforeOrAfterTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "dev")
	s.Write("dev-only.txt", "x")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "main moves on")

	after := s.MustWT("new", "T1", "--base", "dev", "--branch", "feature/one", "--path", "custom-one")
	before := s.MustWT("new", "--json", "--base=dev", "T2")
	if !strings.HasSuffix(after.Out(), "/repo-worktrees/custom-one") {
		t.Fatalf("--path after the task: %q", after.Out())
	}
	if got := s.Git(after.Out(), "symbolic-ref", "--short", "HEAD"); got != "feature/one" {
		t.Fatalf("--branch after the task: HEAD = %q", got)
	}
	if testutil.Exists(filepath.Join(after.Out(), "dev-only.txt")) {
		t.Fatal("--base dev must not contain main's newer commit")
	}
	var rec struct{ Task, Path, Base string }
	if err := json.Unmarshal([]byte(before.Stdout), &rec); err != nil {
		t.Fatalf("--json before the task: %v\n%s", err, before.Stdout)
	}
	if rec.Task != "T2" || rec.Base != "refs/heads/dev" {
		t.Fatalf("--json record = %+v", rec)
	}
	if r := s.WT("new", "--", "-rf"); r.Code != 0 || !strings.HasSuffix(r.Out(), "/rf") {
		t.Fatalf("a task id after -- that looks like a flag: %s", r)
	}
}

func TestNewSlugsFollowTheSpec(t *testing.T) {
	s := testutil.NewSandbox(t)
	cases := map[string]string{
		"feature/auth-login": "feature-auth-login",
		"fix: bug #123":      "fix-_bug_-123",
		"user/john/task":     "user-john-task",
		"CON":                "_CON",
		"...test":            "test",
		"../../x":            "x",
	}
	for id, slug := range cases {
		r := s.MustWT("new", id)
		if filepath.Base(r.Out()) != slug || !strings.Contains(r.Out(), "/repo-worktrees/") {
			t.Errorf("new %q → %q, want slug %q inside the base dir", id, r.Out(), slug)
		}
		if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/"+slug) {
			t.Errorf("new %q: no branch wt/%s", id, slug)
		}
	}
}

func TestCollidingSlugsGetTheHashSuffix(t *testing.T) {
	s := testutil.NewSandbox(t)
	a := s.MustWT("new", "fix: bug #123").Out()
	b := s.MustWT("new", "fix/ bug #123").Out()
	c := s.MustWT("new", "fix-_bug_-123").Out()
	if a == b || b == c || a == c {
		t.Fatalf("different task ids share a worktree: %q %q %q", a, b, c)
	}
	if !strings.HasPrefix(filepath.Base(b), "fix-_bug_-123-") || len(filepath.Base(b)) != len("fix-_bug_-123")+7 {
		t.Fatalf("second task's slug = %q, want the 6-hex-digit suffix", filepath.Base(b))
	}
	// Each id finds its own task again, and the same path as before.
	for id, want := range map[string]string{"fix: bug #123": a, "fix/ bug #123": b, "fix-_bug_-123": c} {
		if got := s.MustWT("new", id).Out(); got != want {
			t.Errorf("new %q again = %q, want %q", id, got, want)
		}
	}
	if got := s.MustWT("path", "fix/ bug #123").Out(); got != b {
		t.Errorf("path by task id = %q, want %q", got, b)
	}
}

func TestNewRefusesPathsOutsideTheBaseDir(t *testing.T) {
	s := testutil.NewSandbox(t)
	elsewhere := filepath.Join(filepath.Dir(s.Repo), "elsewhere")
	r := s.WT("new", "T", "--path", elsewhere)
	if r.Code != 2 || !strings.Contains(r.Stderr, "outside the base dir") {
		t.Fatalf("--path outside: %s", r)
	}
	r = s.WT("new", "T", "--path", "../escape")
	if r.Code != 2 {
		t.Fatalf("--path ../escape: %s", r)
	}
	// A symlink planted in the base dir, pointing out of it.
	base := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees")
	os.MkdirAll(base, 0o755)
	os.MkdirAll(elsewhere, 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(base, "planted")); err != nil {
		t.Fatal(err)
	}
	r = s.WT("new", "planted")
	if r.Code != 2 || !strings.Contains(r.Stderr, "symlink") {
		t.Fatalf("planted symlink: %s", r)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatal("new wrote through the planted symlink")
	}
	assertNothingLeft(t, s)
}

// assertNothingLeft checks that git knows no task: no record, no task
// branch, no worktree but the main one.
func assertNothingLeft(t *testing.T, s *testutil.Sandbox) {
	t.Helper()
	if refs := s.Git(s.Repo, "for-each-ref", "refs/git-wt/tasks/", "refs/heads/wt/"); refs != "" {
		t.Fatalf("refs left behind:\n%s", refs)
	}
	if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Fatalf("worktrees left behind:\n%s", wts)
	}
}

func TestNewRecreatesAVanishedWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	again := s.MustWT("new", "T")
	if again.Out() != path || !testutil.Exists(filepath.Join(path, "README.md")) {
		t.Fatalf("new after the folder vanished: %s", again)
	}
	if s.Git(path, "symbolic-ref", "HEAD") != "refs/heads/wt/T" {
		t.Fatal("recreated worktree is not on the task branch")
	}
}

func TestConcurrentNewOfOneTaskMakesOneWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	const n = 6
	outs := make([]testutil.Result, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i] = s.WT("new", "same-task")
		}(i)
	}
	wg.Wait()
	for i, r := range outs {
		if r.Code != 0 || r.Out() != outs[0].Out() {
			t.Fatalf("process %d: %s (first printed %q)", i, r, outs[0].Out())
		}
	}
	if c := strings.Count(s.Git(s.Repo, "worktree", "list", "--porcelain"), "worktree "); c != 2 {
		t.Fatalf("want main + 1 worktree, got %d", c)
	}
}

func TestNewWithAnUnwritableBaseDirLeavesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	parent := filepath.Join(filepath.Dir(s.Repo), "locked")
	os.MkdirAll(parent, 0o555)
	s.Git(s.Repo, "config", "wt.baseDir", filepath.Join(parent, "wts"))
	s.GiveToNobody()
	r := s.AsNobody("new", "T")
	if r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "cannot create the worktree base dir") {
		t.Fatalf("unwritable base dir: %s", r)
	}
	assertNothingLeft(t, s)
}

// TestNewWithAReadOnlyGitSaysWhichFolder: with .git/objects read-only
// (chmod -R a-w), new says in one line which folder it cannot write to,
// instead of git's "Unable to add (null) to database", and makes nothing:
// no record, branch, worktree or base dir.
func TestNewWithAReadOnlyGitSaysWhichFolder(t *testing.T) {
	s := testutil.NewSandbox(t)
	objects := filepath.Join(s.Repo, ".git", "objects")
	s.GiveToNobody()
	chmodTree := func(change func(os.FileMode) os.FileMode) {
		err := filepath.Walk(objects, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Chmod(p, change(info.Mode().Perm()))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	chmodTree(func(m os.FileMode) os.FileMode { return m &^ 0o222 })
	t.Cleanup(func() { chmodTree(func(m os.FileMode) os.FileMode { return m | 0o200 }) })
	r := s.AsNobody("new", "T")
	if r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "git-wt: cannot write to "+objects+",") || strings.Contains(r.Stderr, "(null)") {
		t.Fatalf("new with a read-only .git/objects: %s", r)
	}
	assertNothingLeft(t, s)
	if base := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees"); testutil.Exists(base) {
		t.Fatalf("new made the base dir %s", base)
	}
}

func TestNewWritesNoGitConfig(t *testing.T) {
	s := testutil.NewSandbox(t)
	cfg := filepath.Join(s.Repo, ".git", "config")
	before, _ := os.ReadFile(cfg)
	path := s.MustWT("new", "T").Out()
	s.MustWT("path", "T")
	after, _ := os.ReadFile(cfg)
	if string(before) != string(after) {
		t.Fatalf(".git/config changed:\n%s\n---\n%s", before, after)
	}
	if s.GitOK(path, "config", "branch.wt/T.remote") {
		t.Fatal("new must pass --no-track")
	}
}

func TestNewFromAnEmptyRepositoryFailsClearly(t *testing.T) {
	s := testutil.NewSandbox(t)
	empty := filepath.Join(filepath.Dir(s.Repo), "empty")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "empty")
	r := s.WTIn(empty, "new", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no commit") {
		t.Fatalf("new in an empty repository: %s", r)
	}
}

func TestNewWithABadBaseIsAUsageError(t *testing.T) {
	s := testutil.NewSandbox(t)
	// SPEC §14: a base that is neither a commit nor a task is exit 5; one
	// git could read as an option is bad input.
	for base, code := range map[string]int{"no-such-ref": 5, "--output=/tmp/x": 2} {
		if r := s.WT("new", "T", "--base", base); r.Code != code {
			t.Errorf("--base %q: want exit %d: %s", base, code, r)
		}
	}
	if r := s.WT("new", "T", "--branch", "bad..name"); r.Code != 2 {
		t.Errorf("--branch bad..name: %s", r)
	}
	assertNothingLeft(t, s)
}
