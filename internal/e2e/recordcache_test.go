//go:build unix

// These tests protect the record blob cache (.git/wt/records.cache): what
// git-wt shows is always what the refs hold, whoever wrote them, and
// whatever the cache file holds.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// rewriteRecord points refs/git-wt/tasks/<slug> at a copy of its record with field
// set to value, written by plain git, as a user or another tool might.
func rewriteRecord(t *testing.T, s *testutil.Sandbox, slug, field string, value any) {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/"+slug)), &rec); err != nil {
		t.Fatal(err)
	}
	rec[field] = value
	data, _ := json.Marshal(rec)
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = s.Repo, s.Env, strings.NewReader(string(data)+"\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	s.Git(s.Repo, "update-ref", "refs/git-wt/tasks/"+slug, strings.TrimSpace(string(out)))
}

// listed is list --json (with args) by slug.
func listed(t *testing.T, s *testutil.Sandbox, args ...string) map[string]map[string]any {
	t.Helper()
	var views []map[string]any
	if err := json.Unmarshal([]byte(s.MustWT(append([]string{"list", "--json"}, args...)...).Stdout), &views); err != nil {
		t.Fatal(err)
	}
	bySlug := map[string]map[string]any{}
	for _, v := range views {
		bySlug[v["slug"].(string)] = v
	}
	return bySlug
}

func listedTask(t *testing.T, s *testutil.Sandbox, slug string) map[string]any {
	t.Helper()
	v, ok := listed(t, s, "--no-status")[slug]
	if !ok {
		t.Fatalf("list has no task %s", slug)
	}
	return v
}

func TestListSeesRecordsWrittenByPlainGitDespiteTheCache(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	cache := filepath.Join(s.Repo, ".git", "wt", "records.cache")
	if !testutil.Exists(cache) {
		t.Fatal("new did not cache the record it wrote")
	}
	if v := listedTask(t, s, "T"); v["task"] != "T" {
		t.Fatalf("list: %v", v)
	}
	rewriteRecord(t, s, "T", "task", "renamed by hand")
	if v := listedTask(t, s, "T"); v["task"] != "renamed by hand" {
		t.Fatalf("list shows the cached record, not the ref's: %v", v)
	}
	// A cache entry whose bytes were changed is not used.
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cache, []byte(strings.ReplaceAll(string(data), "renamed by hand", "tampered by hand")), 0o644)
	if v := listedTask(t, s, "T"); v["task"] != "renamed by hand" {
		t.Fatalf("list trusted a tampered cache entry: %v", v)
	}
	// Garbage in the cache is no error.
	os.WriteFile(cache, []byte("garbage\n\x00\xff"), 0o644)
	if v := listedTask(t, s, "T"); v["task"] != "renamed by hand" {
		t.Fatalf("list with a garbage cache: %v", v)
	}
}

func TestCacheMissCostsOneProcessAndIsFilled(t *testing.T) {
	s := testutil.NewSandbox(t)
	c, run := countingGit(t, s)
	c.MustWT("new", "T")
	run("list", "--no-status") // git's version is asked once, then kept
	rewriteRecord(t, s, "T", "task", "by hand")
	// config, and the refs from git's files (TestGitProcessesPerCommand)
	if n, calls := run("list", "--no-status"); n != 2 || !strings.Contains(calls, "cat-file --batch") {
		t.Errorf("list after a record changed by hand: %d git processes, want 2 (one cat-file):\n%s", n, calls)
	}
	if n, calls := run("list", "--no-status"); n != 1 {
		t.Errorf("list once the cache has the record: %d git processes, want 1:\n%s", n, calls)
	}
}

func TestDoctorDoesNotTrustTheCache(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	oid := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/T")
	if err := os.Remove(filepath.Join(s.Repo, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatal(err)
	}
	r := s.WT("doctor")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "refs/git-wt/tasks/T") {
		t.Fatalf("doctor does not see the record whose blob git lost: %s", r)
	}
}

// list asks the statuses of the cached records' worktrees before the refs
// say which records are live: a status counts only for a live record with
// the same path, branch and base.
func TestEarlyStatusesFollowTheLiveRecords(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "w.txt", "1", "w")
	s.MustWT("new", "gone")
	if v := listed(t, s)["T"]; v["ahead"] != float64(1) || v["behind"] != float64(0) {
		t.Fatalf("T: ahead %v behind %v, want 1 and 0", v["ahead"], v["behind"])
	}
	// The base changed by hand: the cached record's status (against main)
	// must not stand for the live one's (against a branch at the task's
	// commit).
	s.Git(s.Repo, "branch", "other", s.Git(path, "rev-parse", "HEAD"))
	rewriteRecord(t, s, "T", "base", "refs/heads/other")
	if v := listed(t, s)["T"]; v["ahead"] != float64(0) {
		t.Fatalf("after the base moved: ahead %v, want 0", v["ahead"])
	}
	// A record deleted by hand is not listed, though its worktree and its
	// cache entry are still there.
	s.Git(s.Repo, "update-ref", "-d", "refs/git-wt/tasks/gone")
	if _, ok := listed(t, s)["gone"]; ok {
		t.Fatal("list shows a task whose record is gone")
	}
}
