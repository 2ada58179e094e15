//go:build unix

// These tests protect the task lifecycle's refusals: a command that would
// move a task out of a state it may not leave (a failed setup, another
// process's operation) is refused with exit 3 and a line that says what to
// do, and changes nothing.
package e2e

import (
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMergeOfAFailedTaskIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "exit 7")
	if r := s.WT("new", "T"); r.Code != 1 {
		t.Fatalf("new with a failing init: %s", r)
	}
	path := readRecord(t, s, "T")["path"].(string)
	commitFile(s, path, "task.txt", "task\n", "task work")
	mainTip := s.Git(s.Repo, "rev-parse", "main")
	r := s.WT("merge", "T")
	if r.Code != 3 || !strings.HasPrefix(r.Stderr, "git-wt: ") || !strings.Contains(r.Stderr, "git wt init T") {
		t.Fatalf("merge of a failed task: %s", r)
	}
	if got := s.Git(s.Repo, "rev-parse", "main"); got != mainTip {
		t.Errorf("a refused merge moved main to %s", got)
	}
	if state := taskState(t, s); state != "failed" {
		t.Errorf("state %q after a refused merge, want failed", state)
	}
}

// A record and git's admin entry that disagree on a worktree's lock (a
// git wt lock killed between its two writes, or git worktree unlock by
// hand) are reported, and doctor --fix makes the record follow git.
func TestDoctorMakesTheRecordsLockFollowGit(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(s.Repo, "worktree", "lock", "--reason", "by hand", path)
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, "lock-mismatch") {
		t.Fatalf("doctor must report a lock only git has: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	if rec := readRecord(t, s, "T"); rec["locked"] != true || rec["lock_reason"] != "by hand" {
		t.Fatalf("the record after doctor --fix: locked %v, reason %v", rec["locked"], rec["lock_reason"])
	}
	s.Git(s.Repo, "worktree", "unlock", path)
	if r := s.WT("doctor", "--fix"); r.Code != 0 || readRecord(t, s, "T")["locked"] != false {
		t.Fatalf("doctor --fix after git worktree unlock: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the fixes: %s", r)
	}
}
