//go:build unix

// These tests protect git-wt under many agents at once: bursts of real
// processes on one repository end in a state git agrees with, and limits
// hold exactly.
package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestThirtyConcurrentNewAllSucceed(t *testing.T) {
	s := testutil.NewSandbox(t)
	var cmds []*exec.Cmd
	for i := 0; i < 30; i++ {
		cmds = append(cmds, s.Cmd(s.Repo, "new", fmt.Sprintf("agent-%02d", i)))
	}
	startTogether(t, cmds)
	for i, c := range cmds {
		if code := exitCode(c); code != 0 {
			t.Errorf("agent %d exited %d", i, code)
		}
	}
	if n := consistent(t, s); n != 30 {
		t.Fatalf("%d tasks, want 30", n)
	}
}

func TestTenConcurrentNewOfOneTaskShareItsWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	var cmds []*exec.Cmd
	outs := make([]*strings.Builder, 10)
	for i := range outs {
		c := s.Cmd(s.Repo, "new", "the same task")
		outs[i] = &strings.Builder{}
		c.Stdout = outs[i]
		cmds = append(cmds, c)
	}
	startTogether(t, cmds)
	for i, c := range cmds {
		if code := exitCode(c); code != 0 || outs[i].String() != outs[0].String() || outs[i].Len() == 0 {
			t.Errorf("process %d: exit %d, printed %q (first printed %q)", i, code, outs[i], outs[0])
		}
	}
	if n := consistent(t, s); n != 1 {
		t.Fatalf("%d tasks, want 1", n)
	}
}

func TestMaxWorktreesHoldsExactlyUnderABurst(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.maxWorktrees", "5")
	var cmds []*exec.Cmd
	for i := 0; i < 12; i++ {
		cmds = append(cmds, s.Cmd(s.Repo, "new", fmt.Sprintf("t%d", i)))
	}
	startTogether(t, cmds)
	codes := map[int]int{}
	for _, c := range cmds {
		codes[exitCode(c)]++
	}
	if codes[0] != 5 || codes[4] != 7 {
		t.Fatalf("exit codes %v, want 5 × 0 and 7 × 4", codes)
	}
	if n := consistent(t, s); n != 5 {
		t.Fatalf("%d tasks, want 5", n)
	}
	if r := s.WT("new", "one-more"); r.Code != 4 || !strings.Contains(r.Stderr, "wt.maxWorktrees") {
		t.Fatalf("new beyond the limit: %s", r)
	}
}

func TestThirtyConcurrentRmLeaveNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	var cmds []*exec.Cmd
	for i := 0; i < 30; i++ {
		id := fmt.Sprintf("agent-%02d", i)
		s.MustWT("new", "--quiet", id)
		cmds = append(cmds, s.Cmd(s.Repo, "rm", id))
	}
	startTogether(t, cmds)
	for i, c := range cmds {
		if code := exitCode(c); code != 0 {
			t.Errorf("rm %d exited %d", i, code)
		}
	}
	if n := consistent(t, s); n != 0 {
		t.Fatalf("%d tasks left", n)
	}
	assertNothingLeft(t, s)
}

func TestLockWaiterGivesUp(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "first") // makes .git/wt
	holder := holdFlock(t, filepath.Join(s.Repo, ".git", "wt", "lock"))
	s.Git(s.Repo, "config", "wt.lockTimeout", "300ms")
	r := s.WT("new", "second")
	if r.Code != 1 || !strings.Contains(r.Stderr, "repository lock") || !strings.Contains(r.Stderr, "wt.lockTimeout") {
		t.Fatalf("new while the lock is held: %s", r)
	}
	holder.Process.Kill()
	holder.Wait()
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/second") {
		t.Fatal("a waiter that gave up left a record")
	}
	s.MustWT("new", "second")
}

// An adopted worktree (made by plain git) is a task, but takes no
// wt.maxWorktrees slot: the limit is on what git-wt makes (SPEC §14).
func TestAdoptedWorktreeTakesNoMaxWorktreesSlot(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.maxWorktrees", "1")
	s.Git(s.Repo, "worktree", "add", "-b", "by-hand", filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "by-hand"))
	if r := s.WT("doctor", "--fix"); r.Code != 0 || s.WT("count").Out() != "1" {
		t.Fatalf("doctor --fix must adopt the plain worktree: %s", r)
	}
	if r := s.WT("new", "T"); r.Code != 0 {
		t.Fatalf("new with wt.maxWorktrees=1 and one adopted worktree: %s", r)
	}
	if r := s.WT("new", "U"); r.Code != 4 {
		t.Fatalf("new past wt.maxWorktrees: %s", r)
	}
}

// A worktree adopted long after it was made starts where it forked from
// the base: its base_sha is the merge base, not the base's tip, or its
// commits would be counted against the wrong commit.
func TestAdoptedWorktreeStartsAtItsMergeBase(t *testing.T) {
	s := testutil.NewSandbox(t)
	fork := s.Git(s.Repo, "rev-parse", "HEAD")
	path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "by-hand")
	s.Git(s.Repo, "worktree", "add", "-b", "by-hand", path)
	s.Write(filepath.Join(path, "mine.txt"), "x")
	s.Git(path, "add", "mine.txt")
	s.Git(path, "commit", "-qm", "on the branch")
	s.Write(filepath.Join(s.Repo, "theirs.txt"), "y")
	s.Git(s.Repo, "add", "theirs.txt")
	s.Git(s.Repo, "commit", "-qm", "on the base")
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix must adopt the plain worktree: %s", r)
	}
	if got := readRecord(t, s, "by-hand")["base_sha"]; got != fork {
		t.Fatalf("adopted base_sha %v, want the merge base %s", got, fork)
	}
}
