//go:build unix

// These tests protect `git wt pr`: pull-request info recorded by hand or
// through gh (a stand-in that prints gh's documented output), shown by
// list, and a PR in state MERGED counting as merged.
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// withGh returns a copy of the sandbox with the gh stand-in on PATH, and
// the files that log its calls and hold the pull request's state.
func withGh(t *testing.T, s *testutil.Sandbox) (gh *testutil.Sandbox, log, state string) {
	dir := t.TempDir()
	log, state = filepath.Join(dir, "gh.log"), filepath.Join(dir, "state")
	gh = withPath(s, filepath.Join(testutil.Root(), "internal", "e2e", "testdata", "gh"))
	return withVars(gh, "GH_LOG="+log, "GH_STATE_FILE="+state), log, state
}

// recordedPR is the pull request in task T's record.
func recordedPR(t *testing.T, s *testutil.Sandbox) map[string]any {
	t.Helper()
	var rec struct {
		PR map[string]any `json:"pr"`
	}
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/T")), &rec); err != nil {
		t.Fatal(err)
	}
	return rec.PR
}

func TestPRRecordedByHandCountsAsMergedWhenMerged(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "work.txt", "x", "work")
	r := s.WT("pr", "T", "--set-url", "https://github.com/octo/repo/pull/12", "--title", "Fix it", "--state", "open")
	if r.Code != 0 || r.Out() != "https://github.com/octo/repo/pull/12" {
		t.Fatalf("pr --set-url: %s", r)
	}
	pr := recordedPR(t, s)
	if pr["number"] != 12.0 || pr["state"] != "OPEN" || pr["title"] != "Fix it" {
		t.Fatalf("recorded %v", pr)
	}
	if list := s.MustWT("list").Stdout; !strings.Contains(list, "#12 open") {
		t.Fatalf("list does not show the PR:\n%s", list)
	}
	if r := s.MustWT("pr", "T", "--json"); !strings.Contains(r.Stdout, `"url": "https://github.com/octo/repo/pull/12"`) {
		t.Fatalf("pr --json: %s", r)
	}
	// Merged on the forge (a squash, say): the branch's commits are in no
	// other branch, yet rm deletes it, because the PR says MERGED.
	s.MustWT("pr", "T", "--state", "MERGED")
	if pr := recordedPR(t, s); pr["state"] != "MERGED" || pr["title"] != "Fix it" {
		t.Fatalf("a --state update must keep the rest: %v", pr)
	}
	// What it merged is the branch as it is now (a commit made later is
	// not merged).
	if pr := recordedPR(t, s); pr["head_oid"] != s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") {
		t.Fatalf("--state by hand must record the branch's tip as the PR's head: %v", pr)
	}
	if r := s.WT("rm", "T"); r.Code != 0 || strings.Contains(r.Stderr, "kept branch") {
		t.Fatalf("rm of a task whose PR is merged: %s", r)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("the branch of a merged PR was kept")
	}
}

func TestPRCreatedAndRefreshedThroughGh(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	withRemote(s)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "work.txt", "x", "work")
	gh, log, state := withGh(t, s)
	if r := gh.WT("pr", "T", "--create"); r.Code != 1 || !strings.Contains(r.Stderr, "git wt push T first") {
		t.Fatalf("pr --create of a branch that is not pushed: %s", r)
	}
	s.MustWT("push", "T")
	r := gh.WT("pr", "T", "--create", "--", "--draft")
	if r.Code != 0 || r.Out() != "https://github.com/octo/repo/pull/7" || !strings.Contains(r.Stderr, "Creating pull request") {
		t.Fatalf("pr --create: %s", r)
	}
	calls, _ := os.ReadFile(log)
	want := "pr create --head wt/T --fill --base main --draft\npr view https://github.com/octo/repo/pull/7 --json number,url,title,state,createdAt,headRefOid\n"
	if string(calls) != want {
		t.Fatalf("gh was called with\n%swant\n%s", calls, want)
	}
	pr := recordedPR(t, s)
	if pr["number"] != 7.0 || pr["state"] != "OPEN" || pr["title"] != "Fix the thing" || pr["created_at"] != "2026-01-02T03:04:05Z" {
		t.Fatalf("recorded %v", pr)
	}
	os.WriteFile(state, []byte("MERGED"), 0o644)
	if r := gh.WT("pr", "T", "--refresh"); r.Code != 0 || recordedPR(t, s)["state"] != "MERGED" {
		t.Fatalf("pr --refresh: %s", r)
	}
	if list := s.MustWT("list").Stdout; !strings.Contains(list, "#7 merged") || !strings.Contains(list, "merged") {
		t.Fatalf("list:\n%s", list)
	}
}

func TestPRWithoutGh(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	// A PATH with git and git-wt only.
	onlyGit := filepath.Join(filepath.Dir(s.Repo), "only-git")
	os.MkdirAll(onlyGit, 0o755)
	os.Symlink("/usr/bin/git", filepath.Join(onlyGit, "git"))
	noGh := *s
	noGh.Env = replaceEnv(s.Env, "PATH", testutil.BinDir(t)+":"+onlyGit)
	for _, flag := range []string{"--create", "--refresh"} {
		if r := noGh.WT("pr", "T", flag); r.Code != 1 || !strings.Contains(r.Stderr, "gh (the GitHub CLI) is not installed") || !strings.Contains(r.Stderr, "--set-url") {
			t.Errorf("pr %s without gh: %s", flag, r)
		}
	}
	if r := noGh.WT("pr", "T", "--set-url", "https://example.com/merge_requests/3"); r.Code != 0 || recordedPR(t, s)["number"] != 3.0 {
		t.Fatalf("pr --set-url without gh: %s", r)
	}
}

func TestPRBadInput(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	for _, args := range [][]string{
		{"pr"},
		{"pr", "T", "--create", "--state", "OPEN"},
		{"pr", "T", "--refresh", "--title", "x"},
		{"pr", "T", "--", "--draft"},
		{"pr", "T", "--set-url", "not a url"},
		{"pr", "T", "--state", "half merged"},
		{"pr", "T", "--number", "-3"},
		{"pr", "T", "--number", "x"},
	} {
		if r := s.WT(args...); r.Code != 2 || !strings.HasPrefix(r.Stderr, "git-wt: ") {
			t.Errorf("git wt %q: want exit 2, got %s", args, r)
		}
	}
	if r := s.WT("pr", "T"); r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "no pull request recorded") {
		t.Fatalf("pr with nothing recorded: %s", r)
	}
	if recordedPR(t, s) != nil {
		t.Fatal("bad input recorded something")
	}
}

// --created-at records when the pull request was opened (Automaker's
// createdAt), as --refresh records gh's; a value that is not RFC 3339
// exits 2 and records nothing.
func TestPRCreatedAtIsRecordedByHand(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	s.MustWT("pr", "T", "--set-url", "https://github.com/octo/repo/pull/12", "--created-at", "2026-03-01T09:30:00+01:00")
	if pr := recordedPR(t, s); pr["created_at"] != "2026-03-01T08:30:00Z" || pr["number"] != 12.0 {
		t.Fatalf("recorded %v", pr)
	}
	for _, bad := range []string{"yesterday", "2026-03-01", "2026-03-01 08:30:00", ""} {
		if r := s.WT("pr", "T", "--created-at", bad); r.Code != 2 || !strings.Contains(r.Stderr, "--created-at") {
			t.Fatalf("pr --created-at %q: %s", bad, r)
		}
	}
	if pr := recordedPR(t, s); pr["created_at"] != "2026-03-01T08:30:00Z" {
		t.Fatalf("a refused --created-at changed the record: %v", pr)
	}
	if r := s.WT("pr", "T", "--refresh", "--created-at", "2026-03-01T08:30:00Z"); r.Code != 2 {
		t.Fatalf("--created-at with --refresh: %s", r)
	}
}
