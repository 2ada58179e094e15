//go:build unix

// These tests protect `git wt merge`: each mode gives the history git
// would, into a checked-out base or one checked out nowhere; a conflict, a
// dirty worktree or an interrupt changes nothing; and a merged task is
// cleaned up unless kept.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// mergeSetup makes task T with one commit, and, if mainMoves, a commit on
// main after it started.
func mergeSetup(t *testing.T, mainMoves bool) (s *testutil.Sandbox, path, taskTip, mainTip string) {
	s = testutil.NewSandbox(t)
	path = s.MustWT("new", "T").Out()
	taskTip = commitFile(s, path, "task.txt", "task\n", "task work")
	mainTip = s.Git(s.Repo, "rev-parse", "HEAD")
	if mainMoves {
		mainTip = commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	}
	return s, path, taskTip, mainTip
}

// parents lists the parents of a commit.
func parents(s *testutil.Sandbox, rev string) []string {
	return strings.Fields(s.Git(s.Repo, "rev-list", "--no-walk", "--parents", rev))[1:]
}

// unchanged asserts that a refused or failed merge left everything as it
// was: main where it was and clean, the task whole and active.
func unchanged(t *testing.T, s *testutil.Sandbox, path, taskTip, mainTip string) {
	t.Helper()
	if got := s.Git(s.Repo, "rev-parse", "main"); got != mainTip {
		t.Errorf("main moved to %s", got)
	}
	if st := s.Git(s.Repo, "status", "--porcelain"); st != "" {
		t.Errorf("the main worktree is not clean:\n%s", st)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "MERGE_HEAD") {
		t.Error("a merge was left in progress in the main worktree")
	}
	if got := s.Git(s.Repo, "rev-parse", "refs/heads/wt/T"); got != taskTip {
		t.Errorf("the task branch moved to %s", got)
	}
	if !testutil.Exists(filepath.Join(path, "task.txt")) {
		t.Error("the task worktree lost its work")
	}
	if state := taskState(t, s); state != "active" {
		t.Errorf("task state %q, want active", state)
	}
}

// taskState is the state in task T's record.
func taskState(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	var rec struct{ State string }
	if err := json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", "refs/git-wt/tasks/T")), &rec); err != nil {
		t.Fatal(err)
	}
	return rec.State
}

func TestMergeModesIntoTheMainWorktree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		flags     []string
		mainMoves bool
		how       string
		parents   int // of main's new tip
	}{
		{"fast-forward", nil, false, "fast-forward", 1},
		{"merge", nil, true, "merge", 2},
		{"no-ff", []string{"--no-ff"}, false, "merge", 2},
		{"ff-only", []string{"--ff-only"}, false, "fast-forward", 1},
		{"squash", []string{"--squash"}, true, "squash", 1},
		{"rebase", []string{"--rebase"}, true, "rebase", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, taskTip, mainTip := mergeSetup(t, c.mainMoves)
			r := s.WT(append([]string{"merge", "T"}, c.flags...)...)
			tip := s.Git(s.Repo, "rev-parse", "main")
			if r.Code != 0 || r.Out() != tip || !strings.Contains(r.Stderr, "("+c.how+")") {
				t.Fatalf("merge %v: %s", c.flags, r)
			}
			if p := parents(s, tip); len(p) != c.parents || p[0] != mainTip && c.how != "fast-forward" {
				t.Fatalf("main's tip has parents %v (main was %s)", p, mainTip)
			}
			if c.how == "fast-forward" && tip != taskTip {
				t.Fatal("a fast-forward must put main at the task's commit")
			}
			if s.Git(s.Repo, "show", "main:task.txt") != "task" || s.Git(s.Repo, "status", "--porcelain") != "" {
				t.Fatal("the main worktree does not have the task's work, or is not clean")
			}
			gone(t, s, "T", path)
			if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
				t.Fatal("the merged branch was kept")
			}
		})
	}
}

func TestMergeMessages(t *testing.T) {
	t.Parallel()
	s, _, _, _ := mergeSetup(t, true)
	s.MustWT("merge", "T", "--keep")
	if msg := s.Git(s.Repo, "log", "-1", "--format=%s", "main"); msg != "Merge branch 'wt/T' into main" {
		t.Fatalf("merge commit message %q", msg)
	}
	s2, path, _, _ := mergeSetup(t, false)
	commitFile(s2, path, "more.txt", "more", "more work")
	s2.MustWT("merge", "T", "--squash", "-m", "Squashed by hand")
	if msg := s2.Git(s2.Repo, "log", "-1", "--format=%B", "main"); msg != "Squashed by hand" {
		t.Fatalf("squash message %q", msg)
	}
	s3, path3, _, _ := mergeSetup(t, false)
	commitFile(s3, path3, "more.txt", "more", "more work")
	s3.MustWT("merge", "T", "--squash")
	if msg := s3.Git(s3.Repo, "log", "-1", "--format=%B", "main"); msg != "T\n\n* task work\n* more work" {
		t.Fatalf("default squash message %q", msg)
	}
}

func TestMergeConflictChangesNothing(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{nil, {"--squash"}, {"--rebase"}, {"--no-ff"}} {
		t.Run(strings.Join(append([]string{"default"}, flags...), ""), func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			taskTip := commitFile(s, path, "README.md", "task's version\n", "task edits README")
			commitFile(s, path, "task.txt", "task\n", "task work")
			taskTip = s.Git(path, "rev-parse", "HEAD")
			mainTip := commitFile(s, s.Repo, "README.md", "main's version\n", "main edits README")
			r := s.WT(append([]string{"merge", "T"}, flags...)...)
			if r.Code != 1 || !strings.Contains(r.Stderr, "conflicts in README.md") || r.Stdout != "" {
				t.Fatalf("merge %v with a conflict: %s", flags, r)
			}
			unchanged(t, s, path, taskTip, mainTip)
			if st := s.Git(path, "status", "--porcelain"); st != "" {
				t.Fatalf("the task worktree is not clean after the aborted merge:\n%s", st)
			}
		})
	}
}

func TestMergeRefusesDirtyWorktrees(t *testing.T) {
	t.Parallel()
	s, path, taskTip, mainTip := mergeSetup(t, true)
	s.Write("notes.txt", "the user's work in progress")
	r := s.WT("merge", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, s.Repo+" has 1 uncommitted change") {
		t.Fatalf("merge into a dirty main worktree: %s", r)
	}
	s.Git(s.Repo, "add", "notes.txt")
	s.Git(s.Repo, "commit", "-qm", "notes")
	mainTip = s.Git(s.Repo, "rev-parse", "HEAD")
	s.Write(filepath.Join(path, "task.txt"), "not committed yet")
	r = s.WT("merge", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "would leave them out") {
		t.Fatalf("merge of a task with uncommitted work: %s", r)
	}
	if r := s.WT("merge", "T", "--rebase", "--keep"); r.Code != 3 || !strings.Contains(r.Stderr, "a rebase needs a clean worktree") {
		t.Fatalf("rebase of a task with uncommitted work: %s", r)
	}
	if got := s.Git(s.Repo, "rev-parse", "main"); got != mainTip || s.Git(s.Repo, "rev-parse", "wt/T") == "" || taskState(t, s) != "active" {
		t.Fatal("a refused merge changed something")
	}
	// --keep merges the commits and leaves the uncommitted work where it is.
	if r := s.WT("merge", "T", "--keep"); r.Code != 0 {
		t.Fatalf("merge --keep of a task with uncommitted work: %s", r)
	}
	if !s.GitOK(s.Repo, "merge-base", "--is-ancestor", taskTip, "main") || s.Git(path, "status", "--porcelain") != "M task.txt" {
		t.Fatal("merge --keep did not merge the commits, or touched the uncommitted work")
	}
}

func TestMergeKeepAndMergingAgain(t *testing.T) {
	t.Parallel()
	s, path, _, _ := mergeSetup(t, true)
	r := s.WT("merge", "T", "--squash", "--keep")
	if r.Code != 0 || !testutil.Exists(path) || taskState(t, s) != "active" || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatalf("merge --keep must keep worktree, branch and record: %s", r)
	}
	tip := s.Git(s.Repo, "rev-parse", "main")
	// The squash made main hold all of the task: merging again adds
	// nothing, and removes the task.
	r = s.WT("merge", "T", "--squash", "--json")
	var res struct {
		How, Commit string
		Removal     struct{ WorktreeOutcome, BranchOutcome string } `json:"removal"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); r.Code != 0 || err != nil {
		t.Fatalf("merge again: %v %s", err, r)
	}
	if res.How != "already-merged" || res.Commit != tip || s.Git(s.Repo, "rev-parse", "main") != tip {
		t.Fatalf("merging a merged task again must change nothing: %+v", res)
	}
	if testutil.Exists(filepath.Join(s.Repo, ".git", "SQUASH_MSG")) {
		t.Fatal("an empty squash left SQUASH_MSG for the user's next commit")
	}
	gone(t, s, "T", path)
}

func TestMergeKeepsALockedTask(t *testing.T) {
	t.Parallel()
	s, path, taskTip, _ := mergeSetup(t, false)
	s.Git(s.Repo, "worktree", "lock", path)
	r := s.WT("merge", "T")
	if r.Code != 0 || !strings.Contains(r.Stderr, "kept task") || !strings.Contains(r.Stderr, "locked") {
		t.Fatalf("merge of a locked task: %s", r)
	}
	if s.Git(s.Repo, "rev-parse", "main") != taskTip || !testutil.Exists(path) || taskState(t, s) != "active" {
		t.Fatal("the merge must happen and the locked task stay")
	}
}

func TestMergeBadInput(t *testing.T) {
	t.Parallel()
	s, path, taskTip, mainTip := mergeSetup(t, true)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"merge", "T", "--squash", "--rebase"}, 2, "exclude each other"},
		{[]string{"merge", "T", "--into", "nosuch"}, 2, "no branch nosuch"},
		{[]string{"merge", "T", "--into", "wt/T"}, 2, "into itself"},
		{[]string{"merge", "T", "--into", "-x"}, 2, "invalid branch name"},
		{[]string{"merge", "nosuch"}, 5, "no task"},
		{[]string{"merge", "T", "--ff-only"}, 1, "cannot fast-forward main"},
	} {
		if r := s.WT(c.args...); r.Code != c.code || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("git wt %q: want exit %d and %q, got %s", c.args, c.code, c.msg, r)
		}
	}
	unchanged(t, s, path, taskTip, mainTip)
}

func TestMergeFromInsideTheTaskWorktree(t *testing.T) {
	t.Parallel()
	s, path, taskTip, _ := mergeSetup(t, false)
	// An agent merges its own task from where it works; the worktree it
	// stands in goes.
	if r := s.WTIn(path, "merge", "."); r.Code != 0 || s.Git(s.Repo, "rev-parse", "main") != taskTip {
		t.Fatalf("merge . from inside the task: %s", r)
	}
	gone(t, s, "T", path)
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("the merged branch was kept")
	}
}

func TestConcurrentMergesIntoMainAllLand(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	const n = 6
	for i := 0; i < n; i++ {
		path := s.MustWT("new", fmt.Sprintf("T%d", i)).Out()
		commitFile(s, path, fmt.Sprintf("file%d.txt", i), "x", fmt.Sprintf("work %d", i))
	}
	// All at once, as agents finishing together would.
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i], outs[i] = s.Cmd(s.Repo, "merge", fmt.Sprintf("T%d", i)), &bytes.Buffer{}
		cmds[i].Stderr = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if code := exitStatus(t, c.Wait()); code != 0 {
			t.Errorf("merge T%d: exit %d: %s", i, code, outs[i])
		}
	}
	for i := 0; i < n; i++ {
		if !s.GitOK(s.Repo, "cat-file", "-e", fmt.Sprintf("main:file%d.txt", i)) {
			t.Errorf("main lacks the work of T%d", i)
		}
	}
	if st := s.Git(s.Repo, "status", "--porcelain"); st != "" || s.MustWT("count").Out() != "0" {
		t.Fatalf("after the merges: status %q, count %s", st, s.MustWT("count").Out())
	}
}
