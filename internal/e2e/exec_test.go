//go:build unix

// These tests protect `git wt exec`: the command runs in the task's
// worktree with the task's environment and the caller's stdio, signals
// reach it, and git-wt exits with its status.
package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestExecRunsInTheWorktreeWithTheTaskEnvironment(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "fix: bug #123").Out()
	stamp := filepath.Join(s.Repo, ".git", "wt", "access", "fix-_bug_-123")
	os.Remove(stamp)
	// git-wt started by a hook of another repository, with its index and
	// a stale WT_TASK: the command's git must use the task's worktree.
	other := testutil.NewSandbox(t)
	commitFile(other, other.Repo, "other.txt", "x", "other")
	redirected := withVars(s, "GIT_INDEX_FILE="+filepath.Join(other.Repo, ".git", "index"), "WT_TASK=stale")
	r := redirected.WT("exec", "fix: bug #123", "--",
		"sh", "-c", `pwd; echo "$PWD"; for v in WT_TASK WT_SLUG WT_BRANCH WT_PATH WT_MAIN WT_BASE; do printenv $v; done; git ls-files`)
	want := []string{path, path, "fix: bug #123", "fix-_bug_-123", "wt/fix-_bug_-123", path, s.Repo, "refs/heads/main", ".gitignore", "README.md"}
	if r.Code != 0 || r.Out() != strings.Join(want, "\n") {
		t.Fatalf("exec: %s\nwant stdout:\n%s", r, strings.Join(want, "\n"))
	}
	if !testutil.Exists(stamp) {
		t.Fatal("exec did not count as a use of the task")
	}
}

func TestExecPassesStdinAndFlagsThrough(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	cmd := s.Cmd(s.Repo, "exec", "T", "sh", "-c", `cat; echo "$@"`, "sh", "--force", "-n")
	cmd.Stdin = strings.NewReader("from stdin\n")
	out, err := cmd.Output()
	if err != nil || string(out) != "from stdin\n--force -n\n" {
		t.Fatalf("exec without --: %q %v", out, err)
	}
}

func TestExecExitsWithTheCommandsStatus(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "plain.txt"), "not a program")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"exec", "T", "--", "sh", "-c", "exit 7"}, 7, ""},
		{[]string{"exec", "T", "--", "true"}, 0, ""},
		{[]string{"exec", "T", "--", "no-such-command-here"}, 127, "cannot run no-such-command-here in " + path},
		{[]string{"exec", "T", "--", "./plain.txt"}, 126, "cannot run ./plain.txt"},
		{[]string{"exec", "T"}, 2, "needs a TASK and a command"},
		{[]string{"exec", "T", "--"}, 2, "needs a TASK and a command"},
		{[]string{"exec", "nosuch", "--", "true"}, 5, "no task"},
	} {
		r := s.WT(c.args...)
		if r.Code != c.code || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("git wt %q: want exit %d and %q, got %s", c.args, c.code, c.msg, r)
		}
	}
}

func TestExecSignalsReachTheCommand(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	cmd := s.Cmd(s.Repo, "exec", "T", "--", "sh", "-c",
		`trap 'echo got TERM; exit 9' TERM; echo ready; while :; do sleep 1 & wait $!; done`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("the command did not start: %q", lines.Text())
	}
	// The signal goes to the pid the caller started: git-wt's.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() || lines.Text() != "got TERM" {
		t.Fatalf("the command did not get the signal: %q", lines.Text())
	}
	if code := exitStatus(t, cmd.Wait()); code != 9 {
		t.Fatalf("exit %d, want the command's 9", code)
	}
}

func TestExecOfATaskWhoseWorktreeIsGone(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	os.RemoveAll(path)
	if r := s.WT("exec", "T", "--", "true"); r.Code != 1 || !strings.Contains(r.Stderr, path+" of task \"T\" is missing") {
		t.Fatalf("exec in a vanished worktree: %s", r)
	}
}
