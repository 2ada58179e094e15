//go:build unix

// These tests protect the commands that find and show tasks: list, path,
// show and count, from anywhere in the repository.
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestListFromMainTaskWorktreeAndSubdirectory(t *testing.T) {
	s := testutil.NewSandbox(t)
	a := s.MustWT("new", "task-a").Out()
	b := s.MustWT("new", "fix: bug #123").Out()
	s.Write(filepath.Join(b, "dirty.txt"), "x")
	sub := filepath.Join(a, "deep", "er")
	os.MkdirAll(sub, 0o755)
	for _, dir := range []string{s.Repo, a, sub} {
		r := s.WTIn(dir, "list")
		if r.Code != 0 {
			t.Fatalf("list in %s: %s", dir, r)
		}
		for _, want := range []string{"TASK", "BRANCH", "STATE", "DIRTY", "AGE", "PATH", "task-a", "fix: bug #123", "wt/fix-_bug_-123", a, b} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("list in %s lacks %q:\n%s", dir, want, r.Stdout)
			}
		}
	}
	r := s.MustWT("list", "--json")
	var views []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &views); err != nil || len(views) != 2 {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	byTask := map[string]map[string]any{}
	for _, v := range views {
		byTask[v["task"].(string)] = v
	}
	for _, field := range []string{"task", "slug", "branch", "path", "base", "base_sha", "state", "created_at",
		"last_access_at", "init", "locked", "creator_pid", "creator_host", "creator_start", "dirty", "ahead", "behind", "merged"} {
		if _, ok := byTask["task-a"][field]; !ok {
			t.Errorf("list --json lacks %q", field)
		}
	}
	if byTask["fix: bug #123"]["dirty"].(float64) != 1 || byTask["task-a"]["dirty"].(float64) != 0 {
		t.Fatalf("dirty counts: %v %v", byTask["fix: bug #123"]["dirty"], byTask["task-a"]["dirty"])
	}
	if _, err := json.Marshal(views); err != nil {
		t.Fatal(err)
	}
	if r := s.MustWT("list", "--no-status", "--json"); strings.Contains(r.Stdout, `"dirty"`) {
		t.Fatalf("--no-status must not report a dirty count:\n%s", r.Stdout)
	}
}

func TestListShowsAheadBehindAndAll(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "w.txt", "1", "w")
	s.Write("main.txt", "1")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "main")
	if r := s.MustWT("list"); !strings.Contains(r.Stdout, "+1/-1") {
		t.Fatalf("list lacks ahead/behind +1/-1:\n%s", r.Stdout)
	}
	foreign := filepath.Join(filepath.Dir(s.Repo), "foreign")
	s.Git(s.Repo, "worktree", "add", "-q", foreign)
	r := s.MustWT("list", "--all")
	if !strings.Contains(r.Stdout, "unmanaged") || !strings.Contains(r.Stdout, foreign) || !strings.Contains(r.Stdout, s.Repo+"\n") {
		t.Fatalf("list --all:\n%s", r.Stdout)
	}
	if r := s.MustWT("list"); strings.Contains(r.Stdout, foreign) {
		t.Fatalf("list without --all shows a foreign worktree:\n%s", r.Stdout)
	}
	if r := s.MustWT("list", "--size", "--json"); !strings.Contains(r.Stdout, `"size_bytes"`) {
		t.Fatalf("list --size --json:\n%s", r.Stdout)
	}
}

// list reads what each worktree has checked out from its git status, and
// git's lock from the worktree's admin dir, instead of running git's
// worktree list: what it says must be what git's list says.
func TestListAgreesWithGitWorktreeList(t *testing.T) {
	s := testutil.NewSandbox(t)
	onBranch := s.MustWT("new", "on-branch").Out()
	detached := s.MustWT("new", "detached").Out()
	other := s.MustWT("new", "other").Out()
	s.Git(detached, "checkout", "-q", "--detach", "HEAD")
	s.Git(other, "checkout", "-q", "-b", "elsewhere")
	s.Git(s.Repo, "worktree", "lock", "--reason", "on a USB disk", onBranch)
	byTask := map[string]map[string]any{}
	var views []map[string]any
	if err := json.Unmarshal([]byte(s.MustWT("list", "--json").Stdout), &views); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		byTask[v["task"].(string)] = v
	}
	head := s.Git(s.Repo, "rev-parse", "HEAD")
	for task, want := range map[string]map[string]any{
		"on-branch": {"head": head, "checked_out_branch": "wt/on-branch", "git_locked": true, "git_lock_reason": "on a USB disk"},
		"detached":  {"head": head, "checked_out_branch": nil, "git_locked": nil, "git_lock_reason": nil},
		"other":     {"head": head, "checked_out_branch": "elsewhere", "git_locked": nil, "git_lock_reason": nil},
	} {
		for field, value := range want {
			if got := byTask[task][field]; got != value {
				t.Errorf("list --json: %s's %s is %v, want %v", task, field, got, value)
			}
		}
	}
	porcelain := s.Git(s.Repo, "worktree", "list", "--porcelain")
	for _, want := range []string{"worktree " + onBranch + "\nHEAD " + head + "\nbranch refs/heads/wt/on-branch\nlocked on a USB disk",
		"worktree " + detached + "\nHEAD " + head + "\ndetached", "worktree " + other + "\nHEAD " + head + "\nbranch refs/heads/elsewhere"} {
		if !strings.Contains(porcelain, want) {
			t.Errorf("git worktree list --porcelain says otherwise; lacks %q in:\n%s", want, porcelain)
		}
	}
}

func TestPathBySlugBranchAndDot(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "fix: bug #123").Out()
	sub := filepath.Join(path, "sub")
	os.MkdirAll(sub, 0o755)
	for _, c := range []struct{ dir, arg string }{
		{s.Repo, "fix: bug #123"},
		{s.Repo, "fix-_bug_-123"},
		{s.Repo, "wt/fix-_bug_-123"},
		{s.Repo, "refs/heads/wt/fix-_bug_-123"},
		{path, "."},
		{sub, "."},
		{s.Repo, sub},
	} {
		r := s.WTIn(c.dir, "path", c.arg)
		if r.Code != 0 || r.Stdout != path+"\n" {
			t.Errorf("path %q in %s: %s", c.arg, c.dir, r)
		}
	}
	if r := s.WT("path", "nope"); r.Code != 5 || !strings.HasPrefix(r.Stderr, "git-wt: ") {
		t.Fatalf("path of an unknown task: %s", r)
	}
	if r := s.WT("path", "."); r.Code != 5 {
		t.Fatalf("path . in the main worktree: %s", r)
	}
}

func TestPathRecordsLastAccessWithoutARefWrite(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	before := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/T")
	s.MustWT("path", "T")
	if after := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/T"); after != before {
		t.Fatal("path rewrote the record")
	}
	if !testutil.Exists(filepath.Join(s.Repo, ".git", "wt", "access", "T")) {
		t.Fatal("path did not stamp the last access")
	}
}

func TestShowAndCount(t *testing.T) {
	s := testutil.NewSandbox(t)
	if r := s.MustWT("count"); r.Stdout != "0\n" {
		t.Fatalf("count with no tasks: %q", r.Stdout)
	}
	path := s.MustWT("new", "T").Out()
	s.MustWT("new", "U")
	if r := s.MustWT("count"); r.Stdout != "2\n" {
		t.Fatalf("count: %q", r.Stdout)
	}
	r := s.MustWT("show", "T")
	for _, want := range []string{"task:", "T", "branch:", "wt/T", "path:", path, "state:", "active", "dirty:"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.Stdout)
		}
	}
	var v map[string]any
	r = s.MustWT("show", "--json", "T")
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil || v["path"] != path || v["exists"] != true {
		t.Fatalf("show --json: %v\n%s", err, r.Stdout)
	}
	if r := s.WT("show", "nope"); r.Code != 5 {
		t.Fatalf("show of an unknown task: %s", r)
	}
}
