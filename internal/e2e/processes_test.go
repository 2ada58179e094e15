//go:build unix

// These tests count the git processes each command starts (a logging git
// first on PATH), so that a change that adds one — or one per worktree —
// fails here before it slows every agent down.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// countingGit returns a copy of the sandbox whose git logs each call, and
// the function that says how many calls the last command made.
func countingGit(t *testing.T, s *testutil.Sandbox) (*testutil.Sandbox, func(args ...string) (int, string)) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(s.Repo), "counting")
	log := filepath.Join(dir, "calls")
	s.Write(filepath.Join(dir, "git"), "#!/bin/sh\necho \"$*\" >> '"+log+"'\nexec '"+real+"' \"$@\"\n")
	os.Chmod(filepath.Join(dir, "git"), 0o755)
	c := withPath(s, dir)
	return c, func(args ...string) (int, string) {
		t.Helper()
		os.Remove(log)
		if r := c.WT(args...); r.Code != 0 {
			t.Fatalf("git wt %s: %s", strings.Join(args, " "), r)
		}
		data, _ := os.ReadFile(log)
		calls := strings.TrimSpace(string(data))
		if calls == "" {
			return 0, ""
		}
		return strings.Count(calls, "\n") + 1, calls
	}
}

func TestGitProcessesPerCommand(t *testing.T) {
	s := testutil.NewSandbox(t)
	c, run := countingGit(t, s)
	run("count")          // git's version is asked once per git binary, then kept
	run("new", "warm-up") // and a commit's checkout size once per commit
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"path", "warm-up"}, 2},     // rev-parse, cat-file (side by side)
		{[]string{"count"}, 2},               // rev-parse, for-each-ref
		{[]string{"new", "T"}, 9},            // of which one (worktree add) under the lock
		{[]string{"new", "T"}, 3},            // it exists: config (which confirms where the repository is), cat-file, and the update-ref started beside them for a record it does not write
		{[]string{"list", "--no-status"}, 1}, // config: the record refs are read from git's files, their blobs are cached
		{[]string{"list"}, 1 + 2},            // and one git status per worktree, which says what it has checked out
		{[]string{"show", "T"}, 4},           // config, cat-file, worktree list, status
		// With the branch and the record deleted in one transaction; the
		// state "removing" (hash-object, update-ref) and the second status
		// of the moved folder make removal all or nothing (SPEC §7).
		{[]string{"rm", "T"}, 11},
	}
	for _, tc := range cases {
		if n, calls := run(tc.args...); n != tc.want {
			t.Errorf("git wt %s started %d git processes, want %d:\n%s", strings.Join(tc.args, " "), n, tc.want, calls)
		}
	}
	// One status per worktree more, and nothing else, for more tasks.
	for _, id := range []string{"a", "b", "c", "d"} {
		c.MustWT("new", "--quiet", id)
	}
	// The config listing is git's (1) or, once kept and its files are
	// more than 2 s old, the kept one's (0): the machine's speed decides.
	if n, calls := run("list"); strings.Count(calls, "status --porcelain") != 5 || n-5 > 1 {
		t.Errorf("list of 5 tasks started %d git processes, want a status each and at most a config:\n%s", n, calls)
	}
	// Up-to-date tasks cost nothing each: config, the records, the
	// branches, one for-each-ref --contains per base.
	if n, calls := run("sync", "--all"); n != 4 {
		t.Errorf("sync --all of 5 up-to-date tasks started %d git processes, want 4:\n%s", n, calls)
	}
}

// A claim adds to new what SPEC §9 allows it: one commit-tree (the claim
// commit) and one push, and on the winning path no read of the remote.
func TestGitProcessesOfAClaim(t *testing.T) {
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s.Git(root, "init", "-q", "--bare", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(root, "origin.git"))
	_, run := countingGit(t, s)
	run("new", "warm-up")
	s.Git(s.Repo, "config", "wt.claimRemote", "origin")
	_, calls := run("new", "T")
	count := map[string]int{}
	for _, line := range strings.Split(calls, "\n") {
		if verb, _, _ := strings.Cut(line, " "); verb != "" {
			count[verb]++
		}
	}
	// new's own two hash-objects are its record's; the empty tree is
	// not written.
	if count["commit-tree"] != 1 || count["push"] != 1 || count["ls-remote"]+count["fetch"] != 0 || count["hash-object"] != 2 {
		t.Errorf("new with a claim: want one commit-tree, one push, no read of the remote:\n%s", calls)
	}
}
