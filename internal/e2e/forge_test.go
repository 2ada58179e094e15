//go:build unix

// These tests protect tasks started from the forge and cleaned after it
// (SPEC §17): new --pr and --issue through gh (a stand-in on PATH that
// logs its arguments), the refusal without gh or offline, and gc --merged.
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// forgeRecord is what a task's record says of the forge.
func forgeRecord(t *testing.T, s *testutil.Sandbox, slug string) (pr, issue map[string]any) {
	t.Helper()
	var rec struct {
		PR    map[string]any `json:"pr"`
		Issue map[string]any `json:"issue"`
	}
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/"+slug)), &rec); err != nil {
		t.Fatal(err)
	}
	return rec.PR, rec.Issue
}

// prRemote gives the sandbox a remote with the PR's head: branch feature
// (one commit on main), also as refs/pull/12/head, as GitHub keeps it.
func prRemote(t *testing.T, s *testutil.Sandbox) (head string) {
	remote := withRemote(s)
	s.Git(s.Repo, "push", "-q", "origin", "main")
	other := filepath.Join(s.Home, "contributor")
	s.Git(s.Home, "clone", "-q", remote, other)
	head = commitFile(s, other, "feature.txt", "x", "the feature")
	s.Git(other, "push", "-q", "origin", "HEAD:refs/heads/feature", "HEAD:refs/pull/12/head")
	return head
}

func TestNewFromAPullRequest(t *testing.T) {
	s := testutil.NewSandbox(t)
	head := prRemote(t, s)
	gh, log, _ := withGh(t, s)
	path := gh.MustWT("new", "--pr", "12").Out()
	if filepath.Base(path) != "pr-12" {
		t.Errorf("the task's worktree is %s, want pr-12", path)
	}
	if got := s.Git(path, "rev-parse", "HEAD"); got != head {
		t.Errorf("the task is at %s, want the PR's head %s", got, head)
	}
	if got := s.Git(path, "symbolic-ref", "--short", "HEAD"); got != "feature" {
		t.Errorf("the task is on %s, want the PR's head branch", got)
	}
	pr, _ := forgeRecord(t, s, "pr-12")
	if pr["number"] != 12.0 || pr["state"] != "OPEN" || pr["created_at"] != "2026-01-02T03:04:05Z" {
		t.Errorf("recorded %v", pr)
	}
	if data, _ := os.ReadFile(log); string(data) != "pr view 12 --json number,url,title,state,createdAt,headRefOid,headRefName,baseRefName,isCrossRepository\n" {
		t.Errorf("gh was called as:\n%s", data)
	}
}

func TestNewFromAForksPullRequest(t *testing.T) {
	s := testutil.NewSandbox(t)
	head := prRemote(t, s)
	gh, _, _ := withGh(t, s)
	gh = withVars(gh, "GH_FORK=1")
	path := gh.MustWT("new", "--pr", "12", "review").Out()
	if got := s.Git(path, "rev-parse", "HEAD"); got != head {
		t.Errorf("the task is at %s, want the fork's head %s", got, head)
	}
	if got := s.Git(path, "symbolic-ref", "--short", "HEAD"); got != "wt/review" {
		t.Errorf("a fork's PR is on %s, want the task's own branch", got)
	}
	if pr, _ := forgeRecord(t, s, "review"); pr["number"] != 12.0 {
		t.Errorf("recorded %v", pr)
	}
}

func TestNewFromAnIssue(t *testing.T) {
	s := testutil.NewSandbox(t)
	gh, log, _ := withGh(t, s)
	path := gh.MustWT("new", "--issue", "456").Out()
	if filepath.Base(path) != "issue-456" {
		t.Errorf("the task's worktree is %s, want issue-456", path)
	}
	branch := s.Git(path, "symbolic-ref", "--short", "HEAD")
	if branch != "wt/Login_fails_with_an_empty_password" { // the prefix and the title's slug
		t.Errorf("the task is on %s, want wt/ and the title's slug", branch)
	}
	if _, issue := forgeRecord(t, s, "issue-456"); issue["number"] != 456.0 || issue["title"] != "Login fails with an empty password!" || issue["url"] != "https://github.com/octo/repo/issues/456" {
		t.Errorf("recorded %v", issue)
	}
	if data, _ := os.ReadFile(log); string(data) != "issue view 456 --json number,url,title\n" {
		t.Errorf("gh was called as:\n%s", data)
	}
}

func TestNewFromTheForgeOfflineOrWithoutGhMakesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	gh, _, _ := withGh(t, s)
	offline := withVars(gh, "GH_OFFLINE=1")
	noGh := withVars(s, "PATH="+testutil.BinDir(t)+":"+filepath.Dir(gitPath(t)))
	for name, sb := range map[string]*testutil.Sandbox{"offline": offline, "without gh": noGh} {
		for _, args := range [][]string{{"new", "--pr", "12"}, {"new", "--issue", "456"}} {
			r := sb.WT(args...)
			if r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "nothing was made") {
				t.Errorf("%s, %v: want exit 1 and one line: %s", name, args, r)
			}
		}
	}
	if refs := s.Git(s.Repo, "for-each-ref", "refs/git-wt/", "refs/heads/"); refs != s.Git(s.Repo, "for-each-ref", "refs/heads/main") {
		t.Errorf("a refused new made refs:\n%s", refs)
	}
	if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Errorf("a refused new made a worktree:\n%s", wts)
	}
}

// gitPath is where git is, for a PATH without gh.
func gitPath(t *testing.T) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if testutil.Exists(filepath.Join(dir, "git")) {
			if testutil.Exists(filepath.Join(dir, "gh")) {
				t.Skip("gh is installed beside git")
			}
			return filepath.Join(dir, "git")
		}
	}
	t.Skip("no git on PATH")
	return ""
}

func TestGCMergedRemovesTheTasksTheForgeMerged(t *testing.T) {
	s := testutil.NewSandbox(t)
	withRemote(s)
	s.Git(s.Repo, "push", "-q", "origin", "main")
	paths, heads := map[string]string{}, map[string]string{}
	for _, id := range []string{"A", "B", "C", "D"} {
		paths[id] = s.MustWT("new", id).Out()
		heads[id] = commitFile(s, paths[id], id+".txt", id, "work on "+id)
	}
	s.MustWT("pr", "A", "--set-url", "https://github.com/octo/repo/pull/1")
	s.Write(filepath.Join(paths["B"], "wip.txt"), "not committed")
	gh, log, _ := withGh(t, s)
	opened := time.Now().Add(time.Second).UTC().Truncate(time.Second) // after the tasks were made
	gh = withPRList(t, gh,
		listedPR{Number: 4, State: "OPEN", Head: "wt/D", HeadOID: heads["D"], Created: opened.Add(3 * time.Second)},
		listedPR{Number: 3, State: "CLOSED", Head: "wt/C", HeadOID: heads["C"], Created: opened.Add(2 * time.Second)},
		listedPR{Number: 2, State: "MERGED", Head: "wt/B", HeadOID: heads["B"], Created: opened.Add(time.Second)},
		// A's is recorded by its number: its head branch is another name.
		listedPR{Number: 1, State: "MERGED", Head: "elsewhere", HeadOID: heads["A"], Created: opened})

	r := gh.WT("gc", "--merged", "--dry-run", "--json")
	var doc struct {
		Merged []struct{ Task, Reason, Outcome string }
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &doc) != nil {
		t.Fatalf("gc --merged --dry-run: %s", r)
	}
	outcomes := map[string]string{}
	for _, m := range doc.Merged {
		outcomes[m.Task] = m.Outcome
	}
	if outcomes["A"] != "would remove" || !strings.HasPrefix(outcomes["B"], "kept") || len(outcomes) != 2 {
		t.Errorf("gc --merged --dry-run said %v", outcomes)
	}
	for id, p := range paths {
		if !testutil.Exists(p) {
			t.Fatalf("a dry run removed %s", id)
		}
	}
	if pr, _ := forgeRecord(t, s, "B"); pr != nil {
		t.Errorf("a dry run recorded %v", pr)
	}

	os.Remove(log)
	r = gh.WT("gc", "--merged")
	if r.Code != 0 {
		t.Fatalf("gc --merged: %s", r)
	}
	if data, _ := os.ReadFile(log); string(data) != "pr list --state all --limit 1000 --json number,url,title,state,createdAt,headRefOid,headRefName\n" {
		t.Errorf("gh was asked, once each:\n%s", data)
	}
	gone(t, s, "A", paths["A"])
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/A") {
		t.Error("the branch of a task whose PR was merged was kept")
	}
	for _, id := range []string{"B", "C", "D"} {
		if !testutil.Exists(paths[id]) {
			t.Errorf("gc --merged removed %s", id)
		}
	}
	if pr, _ := forgeRecord(t, s, "B"); pr["number"] != 2.0 || pr["state"] != "MERGED" || pr["created_at"] != opened.Add(time.Second).Format(time.RFC3339) {
		t.Errorf("B's PR, found by its branch, recorded as %v", pr)
	}
	if pr, _ := forgeRecord(t, s, "D"); pr["state"] != "OPEN" {
		t.Errorf("D's PR recorded as %v", pr)
	}

	// --closed: C's PR was closed; once its commits are pushed, it goes.
	if r := gh.WT("gc", "--merged", "--closed"); r.Code != 0 || !testutil.Exists(paths["C"]) {
		t.Fatalf("gc --closed of a task with unpushed commits: %s", r)
	}
	s.MustWT("push", "C")
	if r := gh.WT("gc", "--closed"); r.Code != 0 || testutil.Exists(paths["C"]) {
		t.Fatalf("gc --closed of a pushed task whose PR was closed: %s", r)
	}

	// wt.gcMerged makes plain gc do it; offline, gc says so in one line.
	os.Remove(filepath.Join(paths["B"], "wip.txt"))
	s.Git(s.Repo, "config", "wt.gcMerged", "true")
	if r := withVars(gh, "GH_OFFLINE=1").WT("gc"); r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Fatalf("gc with wt.gcMerged offline: %s", r)
	}
	if r := gh.WT("gc"); r.Code != 0 || testutil.Exists(paths["B"]) {
		t.Fatalf("gc with wt.gcMerged: %s", r)
	}
}
