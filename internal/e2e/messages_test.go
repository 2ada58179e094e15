//go:build unix

// These tests protect git-wt's messages under concurrency: every error is
// one "git-wt: " line that says what to do (never git's raw multi-line
// advice, never "exit -1 chdir"), two commits of one task at once both
// succeed, and lock/unlock stay idempotent when many run at once.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// onePrefixedLine fails the test unless stderr is empty or every line of
// it is a git-wt message.
func onePrefixedLine(t *testing.T, what, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "git-wt: ") {
			t.Errorf("%s printed a line without the git-wt: prefix: %q\nstderr:\n%s", what, l, stderr)
			return
		}
	}
}

// runTogether runs cmds at the same instant and returns each one's exit
// code and stderr.
func runTogether(t *testing.T, cmds []*exec.Cmd) ([]int, []string) {
	t.Helper()
	errs := make([]*bytes.Buffer, len(cmds))
	for i, c := range cmds {
		errs[i] = &bytes.Buffer{}
		c.Stderr = errs[i]
	}
	startTogether(t, cmds)
	codes, stderrs := make([]int, len(cmds)), make([]string, len(cmds))
	for i, c := range cmds {
		codes[i], stderrs[i] = exitCode(c), errs[i].String()
	}
	return codes, stderrs
}

func TestConcurrentCommitsOnOneTaskBothSucceed(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	for round := 0; round < 4; round++ {
		for i := 0; i < 5; i++ {
			s.Write(filepath.Join(path, fmt.Sprintf("f%d.txt", i)), fmt.Sprintf("round %d\n", round))
		}
		var cmds []*exec.Cmd
		for i := 0; i < 3; i++ {
			cmds = append(cmds, s.Cmd(s.Repo, "commit", "T", "-m", fmt.Sprintf("commit %d.%d", round, i)))
		}
		codes, stderrs := runTogether(t, cmds)
		for i := range cmds {
			onePrefixedLine(t, "git wt commit", stderrs[i])
			if codes[i] != 0 {
				t.Errorf("round %d: commit %d exited %d: %s", round, i, codes[i], stderrs[i])
			}
		}
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" {
		t.Fatalf("the work was not all committed:\n%s", st)
	}
}

// paused starts git-wt with args, stopped at step (task.CheckpointEnv)
// until goOn is called.
func paused(t *testing.T, s *testutil.Sandbox, dir, step string, args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer, goOn func()) {
	t.Helper()
	tmp := t.TempDir()
	gate, goFile := filepath.Join(tmp, "paused"), filepath.Join(tmp, "go")
	cmd = s.Cmd(dir, args...)
	cmd.Env = append(cmd.Env, task.CheckpointEnv+"="+step, task.CheckpointEnv+"_FILE="+gate, task.CheckpointEnv+"_GO="+goFile)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, func() bool { return testutil.Exists(gate) })
	return cmd, stdout, stderr, func() { os.WriteFile(goFile, nil, 0o644) }
}

// A command on a task removed after it read the record says so in one
// line, and exits 5 (not found), as it would have a moment later.
func TestCommitInATaskRemovedMeanwhileSaysSo(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	cmd, _, stderr, goOn := paused(t, s, s.Repo, "commit:locked", "commit", "T", "-m", "work")
	s.MustWT("rm", "-q", "--force", "T")
	goOn()
	code := exitCode(cmd)
	onePrefixedLine(t, "git wt commit", stderr.String())
	if code != 5 || strings.Count(stderr.String(), "\n") != 1 || strings.Contains(stderr.String(), "exit -1") || !strings.Contains(stderr.String(), `task "T" was removed meanwhile`) {
		t.Fatalf("commit in a task removed meanwhile: exit %d\n%s", code, stderr)
	}
}

// A commit of a task removed and made anew since the commit read it, the
// new creation not checked out yet, is refused as a commit in a creation
// is (exit 3), not as one in a worktree the user detached.
func TestCommitInATaskMadeAnewMeanwhileWaitsForTheCreation(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	cmd, _, stderr, goOn := paused(t, s, s.Repo, "commit:locked", "commit", "T", "-m", "work")
	s.MustWT("rm", "-q", "--force", "T")
	stopAt(t, s, "new:worktree", "new", "T")
	goOn()
	code := exitCode(cmd)
	onePrefixedLine(t, "git wt commit", stderr.String())
	if code != 3 || !strings.Contains(stderr.String(), `task "T" is still being created`) {
		t.Fatalf("commit in a task made anew meanwhile: exit %d\n%s", code, stderr)
	}
}

func TestExecInATaskRemovedMeanwhileSaysSo(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "T")
	cmd, stdout, stderr, goOn := paused(t, s, s.Repo, "exec:found", "exec", "T", "--", "pwd")
	s.MustWT("rm", "-q", "T")
	goOn()
	code := exitCode(cmd)
	onePrefixedLine(t, "git wt exec", stderr.String())
	if code != 5 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), `task "T" was removed meanwhile`) {
		t.Fatalf("exec in a task removed meanwhile: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	// And from inside the worktree, removed from under the shell: one
	// line saying where to go.
	gone := s.MustWT("new", "-q", "U").Out()
	sh := exec.Command("sh", "-c", `cd "$1" && rm -rf "$1" && exec git-wt exec U -- pwd`, "sh", gone)
	sh.Env = s.Env
	var errOut bytes.Buffer
	sh.Stderr = &errOut
	out, _ := sh.Output()
	onePrefixedLine(t, "git wt exec from a removed folder", errOut.String())
	if len(out) != 0 || !strings.Contains(errOut.String(), "-C") {
		t.Fatalf("exec from a removed folder: stdout %q\nstderr: %s", out, errOut.String())
	}
}

func TestConcurrentLockAndUnlockAreIdempotent(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "T")
	for _, verb := range []string{"lock", "unlock", "lock", "unlock"} {
		var cmds []*exec.Cmd
		for i := 0; i < 10; i++ {
			cmds = append(cmds, s.Cmd(s.Repo, verb, "T"))
		}
		codes, stderrs := runTogether(t, cmds)
		for i := range cmds {
			onePrefixedLine(t, "git wt "+verb, stderrs[i])
			if codes[i] != 0 {
				t.Errorf("%s %d of 10 exited %d: %s", verb, i, codes[i], stderrs[i])
			}
		}
		locked := strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), "\nlocked")
		if locked != (verb == "lock") {
			t.Fatalf("after 10 %s at once git says locked=%v:\n%s", verb, locked, s.Git(s.Repo, "worktree", "list", "--porcelain"))
		}
	}
}

func TestLockAgainWithoutReasonKeepsTheReason(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "T")
	s.MustWT("lock", "T", "--reason", "agent 7 is running")
	s.MustWT("lock", "T")
	if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); !strings.Contains(got, "locked agent 7 is running") {
		t.Errorf("git's lock lost its reason:\n%s", got)
	}
	if got := s.MustWT("show", "--json", "T").Stdout; !strings.Contains(got, "agent 7 is running") {
		t.Errorf("the record lost the lock's reason:\n%s", got)
	}
	s.MustWT("lock", "T", "--reason", "another")
	if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); !strings.Contains(got, "locked another") {
		t.Errorf("a new --reason did not replace the old one:\n%s", got)
	}
}

// A commit whose worktree is removed while git commits (here by its own
// pre-commit hook, as a concurrent rm --force would) says so in one
// git-wt line, without git's complaints about the files it could not
// write.
func TestCommitWhoseWorktreeGoesDuringTheCommitSaysSoOnce(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	hook := filepath.Join(s.Repo, ".git", "hooks", "pre-commit")
	s.Write(hook, "#!/bin/sh\nunset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE\ncd "+s.Repo+" && git wt rm -q --force T >/dev/null 2>&1\nexit 0\n")
	os.Chmod(hook, 0o755)
	r := s.WT("commit", "T", "-m", "work")
	if r.Code != 5 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, `task "T" was removed meanwhile`) {
		t.Fatalf("commit in a worktree removed during the commit: %s", r)
	}
	onePrefixedLine(t, "git wt commit", r.Stderr)
}
