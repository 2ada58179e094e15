//go:build unix

// These tests protect git-wt from what the forge says (SPEC §19): pull
// request titles reach the terminal quoted, a branch name from a pull
// request is checked before git sees it, new --pr makes nothing before
// its checks, and gc --merged neither counts an earlier task's pull
// request nor deletes commits made after the merge.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// listedPR is one pull request of gh pr list, as gc --merged reads it.
type listedPR struct {
	Number  int
	State   string
	Head    string // headRefName
	HeadOID string // headRefOid
	Created time.Time
}

// withPRList gives the gh stand-in the repository's pull requests.
func withPRList(t *testing.T, gh *testutil.Sandbox, prs ...listedPR) *testutil.Sandbox {
	t.Helper()
	var items []string
	for _, p := range prs {
		items = append(items, fmt.Sprintf(`{"createdAt":%q,"headRefName":%q,"headRefOid":%q,"number":%d,"state":%q,"title":"PR %d","url":"https://github.com/octo/repo/pull/%d"}`,
			p.Created.UTC().Format(time.RFC3339), p.Head, p.HeadOID, p.Number, p.State, p.Number, p.Number))
	}
	list := filepath.Join(t.TempDir(), "list.json")
	gh.Write(list, "["+strings.Join(items, ",\n")+"]")
	return withVars(gh, "GH_LIST="+list)
}

// mergedOutcome runs gc --merged --json, which must exit with code, and
// returns what it says of task.
func mergedOutcome(t *testing.T, gh *testutil.Sandbox, task string, code int) string {
	t.Helper()
	r := gh.WT("gc", "--merged", "--json")
	var doc struct {
		Merged []struct{ Task, Outcome string }
	}
	if r.Code != code || json.Unmarshal([]byte(r.Stdout), &doc) != nil {
		t.Fatalf("gc --merged: %s", r)
	}
	for _, m := range doc.Merged {
		if m.Task == task {
			return m.Outcome
		}
	}
	return ""
}

func TestGCMergedNeverCountsAnEarlierTasksPullRequest(t *testing.T) {
	s := testutil.NewSandbox(t)
	withRemote(s)
	s.Git(s.Repo, "push", "-q", "origin", "main")
	earlier := s.MustWT("new", "T").Out()
	oldHead := commitFile(s, earlier, "old.txt", "old", "the earlier task")
	s.MustWT("merge", "T") // its pull request was merged, the task is gone
	opened := time.Now().Add(-time.Minute)

	path := s.MustWT("new", "T").Out() // the same name, the same branch wt/T
	work := commitFile(s, path, "new.txt", "new", "work not pushed yet")
	gh, _, _ := withGh(t, s)
	gh = withPRList(t, gh, listedPR{Number: 1, State: "MERGED", Head: "wt/T", HeadOID: oldHead, Created: opened})

	if out := mergedOutcome(t, gh, "T", 0); out != "" {
		t.Errorf("gc --merged took the earlier task's pull request for T's: %q", out)
	}
	if !testutil.Exists(path) || s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != work {
		t.Fatal("gc --merged removed the new task and its unpushed commit")
	}
	if pr, _ := forgeRecord(t, s, "T"); pr != nil {
		t.Errorf("the earlier task's pull request was recorded on T: %v", pr)
	}
}

func TestGCMergedKeepsCommitsMadeAfterTheMerge(t *testing.T) {
	s, path, prHead := pushedPRWork(t)
	opened := time.Now().Add(time.Second) // after the task was made
	later := commitFile(s, path, "b.txt", "b", "made after the pull request was merged")
	gh, _, _ := withGh(t, s)
	gh = withPRList(t, gh, listedPR{Number: 5, State: "MERGED", Head: "wt/T", HeadOID: prHead, Created: opened})

	// Kept to protect data: exit 3, as rm refuses (SPEC §19, kind unmerged).
	out := mergedOutcome(t, gh, "T", 3)
	if !strings.HasPrefix(out, "kept") || !strings.Contains(out, "after") {
		t.Errorf("gc --merged said %q of a task with a commit after its merge, want it kept and why", out)
	}
	if !testutil.Exists(path) || s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != later {
		t.Fatal("gc --merged deleted a commit made after the pull request was merged")
	}
	// Nor may it leave the task counted as merged, for rm to delete that
	// commit with the branch.
	s.MustWT("rm", "T")
	if s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != later {
		t.Fatal("rm after gc --merged deleted the commit made after the merge")
	}
}

// A pull request recorded as merged holds its branch up to its head
// commit: a commit made on the task after it is not merged, so neither
// gc's retention nor rm deletes it with the branch.
func TestAMergedPullRequestLeavesCommitsAfterItsHeadUnmerged(t *testing.T) {
	s, path, prHead := pushedPRWork(t)
	gh, _, state := withGh(t, s)
	gh = withVars(gh, "GH_HEAD_OID="+prHead)
	os.WriteFile(state, []byte("MERGED"), 0o644)
	s.MustWT("pr", "T", "--set-url", "https://github.com/octo/repo/pull/7")
	gh.MustWT("pr", "T", "--refresh")
	if pr := recordedPR(t, s); pr["state"] != "MERGED" || pr["head_oid"] != prHead {
		t.Errorf("pr --refresh recorded %v, want MERGED with head_oid %s", pr, prHead)
	}
	later := commitFile(s, path, "b.txt", "b", "made after the pull request was merged")

	age(t, s, "T", 10*24*time.Hour)
	s.MustWT("gc", "--max-age", "1d")
	if !testutil.Exists(path) || s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != later {
		t.Fatal("gc's retention removed a task with a commit made after its pull request was merged")
	}
	r := s.WT("rm", "T", "--json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"branch_outcome": "kept_unmerged"`) || !strings.Contains(r.Stderr, "kept branch wt/T: 1 commit not merged") {
		t.Errorf("rm of a task with a commit after its merged pull request: %s", r)
	}
	if s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != later {
		t.Fatal("rm deleted the commit made after the pull request was merged")
	}
}

// pr --refresh with no pull request recorded asks gh for the one of the
// task's branch, which may be an earlier task's of the same name: it is
// recorded only when it was opened after the task was made and its head
// commit is on the task's branch, as gc --merged counts it.
func TestPRRefreshNeverRecordsAnEarlierTasksPullRequest(t *testing.T) {
	s := testutil.NewSandbox(t)
	earlier := s.MustWT("new", "T").Out()
	oldHead := commitFile(s, earlier, "old.txt", "old", "the earlier task")
	s.MustWT("merge", "T") // its pull request was merged, the task is gone

	path := s.MustWT("new", "T").Out() // the same name, the same branch wt/T
	work := commitFile(s, path, "new.txt", "new", "work not pushed yet")
	gh, _, state := withGh(t, s)
	os.WriteFile(state, []byte("MERGED"), 0o644)
	before, after := time.Now().Add(-time.Minute), time.Now().Add(time.Minute)
	for _, pr := range []struct {
		what    string
		head    string
		created time.Time
	}{
		{"opened before the task, its head on the branch (merged into the base)", oldHead, before},
		{"its head not on the branch", strings.Repeat("ab", 20), after},
	} {
		r := withVars(gh, "GH_HEAD_OID="+pr.head, "GH_CREATED="+pr.created.UTC().Format(time.RFC3339)).WT("pr", "T", "--refresh")
		if r.Code != 1 || !strings.Contains(r.Stderr, "#7") {
			t.Errorf("pr --refresh given a pull request %s: want exit 1 naming it, got %s", pr.what, r)
		}
		if got := recordedPR(t, s); got != nil {
			t.Fatalf("pr --refresh recorded a pull request %s on T: %v", pr.what, got)
		}
	}
	if s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != work {
		t.Fatal("the new task's commit is gone")
	}
	mine := withVars(gh, "GH_HEAD_OID="+work, "GH_CREATED="+after.UTC().Format(time.RFC3339))
	if r := mine.WT("pr", "T", "--refresh"); r.Code != 0 || recordedPR(t, s)["head_oid"] != work {
		t.Fatalf("pr --refresh of the task's own pull request: %s, recorded %v", r, recordedPR(t, s))
	}
}

// hostile is a pull request title that moves the cursor, sets the
// terminal's title and clears the screen, as JSON string content (C0 and
// C1 controls).
const hostile = `Fix \u001b]0;owned\u0007 \u001b[2J \u009b31m`

// rawControls reports the controls of hostile found raw in out.
func rawControls(out string) bool {
	return strings.ContainsAny(out, "\x1b\x07\u009b")
}

func TestForgeTextsReachTheTerminalQuoted(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	s.MustWT("pr", "T", "--set-url", "https://github.com/octo/repo/pull/7")
	gh, _, _ := withGh(t, s)
	gh = withVars(gh, "GH_TITLE="+hostile)
	for _, args := range [][]string{{"pr", "T", "--refresh"}, {"pr", "T"}, {"show", "T"}, {"list"}} {
		r := gh.WT(args...)
		if r.Code != 0 {
			t.Fatalf("%v: %s", args, r)
		}
		if rawControls(r.Stdout + r.Stderr) {
			t.Errorf("%v printed the pull request's title raw:\n%q", args, r.Stdout+r.Stderr)
		}
	}
	var rec struct{ PR struct{ Title string } }
	if err := json.Unmarshal([]byte(gh.MustWT("show", "T", "--json").Out()), &rec); err != nil || !rawControls(rec.PR.Title) {
		t.Errorf("JSON keeps the title as it is, got %q (%v)", rec.PR.Title, err)
	}

	s.MustWT("lock", "T", "--reason", "\x1b[31mred\x1b[0m")
	if r := s.WT("show", "T"); r.Code != 0 || rawControls(r.Stdout) {
		t.Errorf("show printed the lock reason raw: %s", r)
	}
}

func TestNewFromAPullRequestRefusesABranchNameGitWouldNotTake(t *testing.T) {
	s := testutil.NewSandbox(t)
	prRemote(t, s)
	other := filepath.Join(s.Home, "contributor")
	s.Git(other, "push", "-q", "origin", "HEAD:refs/heads/-x") // a ref git takes, a branch name it does not
	gh, _, _ := withGh(t, s)
	before := s.Git(s.Repo, "for-each-ref")
	for _, head := range []string{"-x", "a..b", "@{-1}"} {
		r := withVars(gh, "GH_HEAD="+head).WT("new", "--pr", "12")
		if r.Code != 3 || !strings.Contains(r.Stderr, "branch") || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("a pull request on branch %q: want exit 3 and one line naming the branch: %s", head, r)
		}
	}
	if after := s.Git(s.Repo, "for-each-ref"); after != before {
		t.Errorf("a refused new --pr made refs:\n%s\nwas:\n%s", after, before)
	}
	if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Errorf("a refused new --pr made a worktree:\n%s", wts)
	}
}

func TestNewFromAPullRequestChecksTheLimitFirstAndOwnsTheBranchItMakes(t *testing.T) {
	s := testutil.NewSandbox(t)
	head := prRemote(t, s)
	gh, _, _ := withGh(t, s)
	s.MustWT("new", "other")
	s.Git(s.Repo, "config", "wt.maxWorktrees", "1")
	if r := gh.WT("new", "--pr", "12"); r.Code != 4 {
		t.Fatalf("new --pr past wt.maxWorktrees: want exit 4: %s", r)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/feature") {
		t.Fatal("new --pr refused by the limit made the pull request's branch")
	}

	s.Git(s.Repo, "config", "wt.maxWorktrees", "2")
	gh.MustWT("new", "--pr", "12")
	if rec := readRecord(t, s, "pr-12"); rec["branch_created"] != true {
		t.Errorf("the branch new --pr made is recorded as not git-wt's: %v", rec["branch_created"])
	}
	gh.MustWT("rm", "pr-12")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/feature") {
		t.Errorf("rm kept the branch new --pr made at %s", head)
	}
}

// pushedPRWork is task T with one commit pushed, main on the remote too:
// the work of a pull request.
func pushedPRWork(t *testing.T) (s *testutil.Sandbox, path, prHead string) {
	s, _, path, prHead = pushSetup(t)
	s.Git(s.Repo, "push", "-q", "origin", "main")
	s.MustWT("push", "T")
	return s, path, prHead
}
