//go:build unix

// These tests protect `git wt merge` when it is stopped half-way: Ctrl-C
// takes the merge back, and after a SIGKILL the task says it was merging,
// merging again leaves the half-done merge alone, and doctor --fix takes
// back only the files that are provably the merge's own (their content is
// the task's commit's); anything else is left for the user.
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// startHeldMerge starts `git wt merge T` (with extra) in a process group
// of its own, its stderr kept; the hook or filter that waits on the fifo
// hold is released when the test ends. The merge's exit comes on the
// channel.
func startHeldMerge(t *testing.T, s *testutil.Sandbox, hold string, extra ...string) (*exec.Cmd, chan error, *bytes.Buffer) {
	t.Helper()
	t.Cleanup(func() { // release a hook or filter that is still waiting
		if f, err := os.OpenFile(hold, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	cmd := s.Cmd(s.Repo, append([]string{"merge", "T"}, extra...)...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return cmd, exited, stderr
}

// stopMidMerge starts `git wt merge T` in a process group of its own and
// returns once git is half-way through the merge: the main worktree's
// pre-merge-commit hook is running (the merged files are written, the
// commit not made). The hook waits until the test ends. The merge's exit
// comes on the channel.
func stopMidMerge(t *testing.T, s *testutil.Sandbox, extra ...string) (*exec.Cmd, <-chan error, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	ready, hold := filepath.Join(dir, "ready"), filepath.Join(dir, "hold")
	for _, f := range []string{ready, hold} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(s.Repo, ".git", "hooks", "pre-merge-commit")
	s.Write(hook, "#!/bin/sh\necho merging > '"+ready+"'\nread x < '"+hold+"'\n")
	os.Chmod(hook, 0o755)
	cmd, exited, stderr := startHeldMerge(t, s, hold, extra...)
	got := make(chan struct{})
	go func() {
		os.ReadFile(ready)
		close(got)
	}()
	select {
	case <-got:
	case err := <-exited:
		if f, err := os.OpenFile(ready, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatalf("git wt merge ended (%v) before git ran the hook: %s", err, stderr.String())
	}
	return cmd, exited, stderr
}

func TestMergeInterruptedIsTakenBack(t *testing.T) {
	t.Parallel()
	s, path, taskTip, mainTip := mergeSetup(t, true)
	cmd, exited, stderr := stopMidMerge(t, s)
	// Ctrl-C: the terminal signals the whole foreground process group.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	if code := exitStatus(t, <-exited); code != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted merge: exit %d, %s", code, stderr)
	}
	unchanged(t, s, path, taskTip, mainTip)
}

// A Ctrl-C reaches every process of the group at once, and git can die
// of it before git-wt has seen its own: the merge is still taken back and
// reported as interrupted, not left for the user as a failed merge.
func TestMergeInterruptedIsTakenBackWhenGitDiesFirst(t *testing.T) {
	t.Parallel()
	s, path, taskTip, mainTip := mergeSetup(t, true)
	cmd, exited, stderr := stopMidMerge(t, s)
	for _, pid := range groupMembers(t, cmd.Process.Pid) {
		if pid != cmd.Process.Pid {
			syscall.Kill(pid, syscall.SIGINT)
		}
	}
	time.Sleep(300 * time.Millisecond) // git is gone; git-wt has not been told
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	if code := exitStatus(t, <-exited); code != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted merge: exit %d, %s", code, stderr)
	}
	unchanged(t, s, path, taskTip, mainTip)
}

// groupMembers lists the processes in the process group pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to find the processes of a group in")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A merge killed inside git's own merge (here in the pre-merge-commit hook:
// the merged files written and staged, the commit not made) leaves the
// task merging and the main worktree half merged. Merging again refuses to
// touch what it left; doctor --fix takes back the files that are the
// task's own (their content is in its commit: nothing is lost), and the
// task is active again.
func TestMergeKilledInGitsMergeIsTakenBackByDoctor(t *testing.T) {
	t.Parallel()
	s, path, taskTip, mainTip := mergeSetup(t, true)
	cmd, exited, _ := stopMidMerge(t, s)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	os.Remove(filepath.Join(s.Repo, ".git", "hooks", "pre-merge-commit"))
	// The record shows the merge that did not finish...
	if state := taskState(t, s); state != "merging" {
		t.Fatalf("task state %q after a killed merge, want merging", state)
	}
	halfDone := s.Git(s.Repo, "status", "--porcelain")
	if halfDone != "A  task.txt" {
		t.Fatalf("the killed merge left %q", halfDone)
	}
	// ...merging again refuses to touch what it left, and says why...
	r := s.WT("merge", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "interrupted git wt merge") || !strings.Contains(r.Stderr, s.Repo) {
		t.Fatalf("merge after a killed merge: %s", r)
	}
	if st := s.Git(s.Repo, "status", "--porcelain"); st != halfDone || s.Git(s.Repo, "rev-parse", "main") != mainTip {
		t.Fatal("git wt merge reset the half-done merge")
	}
	// ...and doctor --fix takes back the merge's own file.
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix after a killed merge: %s", r)
	}
	unchanged(t, s, path, taskTip, mainTip)
	if r := s.WT("merge", "T"); r.Code != 0 || !s.GitOK(s.Repo, "merge-base", "--is-ancestor", taskTip, "main") {
		t.Fatalf("merge after the repair: %s", r)
	}
	gone(t, s, "T", path)
}

func TestMergeRefusesABaseInTheMiddleOfAMerge(t *testing.T) {
	t.Parallel()
	s, _, taskTip, mainTip := mergeSetup(t, true)
	s.Git(s.Repo, "merge", "-q", "--no-commit", "--no-ff", taskTip)
	r := s.WT("merge", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "in the middle of a merge") {
		t.Fatalf("merge into a worktree with a merge in progress: %s", r)
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "MERGE_HEAD") || s.Git(s.Repo, "rev-parse", "main") != mainTip {
		t.Fatal("the user's merge in progress was touched")
	}
}

func TestMergeKilledInItsTemporaryWorktreeIsRepairedByDoctor(t *testing.T) {
	t.Parallel()
	s, path, taskTip, _ := mergeSetup(t, false)
	s.Git(s.Repo, "branch", "release")
	release := s.Git(s.Repo, "rev-parse", "release")
	// A git without merge-tree --write-tree: the merge into a branch no
	// worktree has out happens in a temporary worktree.
	old := gitSaysItIs(s, "2.37.7")
	cmd, exited, _ := stopMidMerge(t, old, "--into", "release", "--no-ff")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	os.Remove(filepath.Join(s.Repo, ".git", "hooks", "pre-merge-commit"))
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, "leftover-merge-worktree") || !strings.Contains(r.Stdout, ".git-wt-tmp") {
		t.Fatalf("doctor after a merge killed in its temporary worktree: %s", r)
	}
	s.WT("doctor", "--fix")
	if strings.Contains(s.Git(s.Repo, "worktree", "list"), ".git-wt-tmp") {
		t.Fatal("doctor --fix left the temporary worktree")
	}
	if tmp := filepath.Join(filepath.Dir(path), ".git-wt-tmp"); testutil.Exists(tmp) {
		t.Fatalf("doctor --fix left the folder of temporary worktrees %s, empty, in the base dir", tmp)
	}
	if s.Git(s.Repo, "rev-parse", "release") != release || s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != taskTip || !testutil.Exists(path) {
		t.Fatal("the repair changed the base or the task")
	}
}

// stopMidCheckout starts `git wt merge T` (a fast-forward of main, checked
// out in the main worktree) in a process group of its own and returns once
// git is in the middle of writing the merged files: a.txt is written, and
// b.txt's smudge filter waits until the test ends.
func stopMidCheckout(t *testing.T, s *testutil.Sandbox, extra ...string) (*exec.Cmd, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	reached, hold := filepath.Join(dir, "reached"), filepath.Join(dir, "hold")
	if err := syscall.Mkfifo(hold, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Write(filepath.Join(s.Repo, ".git", "info", "attributes"), "b.txt filter=stop\n")
	s.Git(s.Repo, "config", "filter.stop.smudge", "touch '"+reached+"'; read x < '"+hold+"'; cat")
	cmd, exited, stderr := startHeldMerge(t, s, hold, extra...)
	for !testutil.Exists(reached) {
		select {
		case err := <-exited:
			t.Fatalf("git wt merge ended (%v) before git ran the filter: %s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return cmd, exited
}

// A merge killed while git writes the merged files into the worktree that
// has the base checked out leaves the task's files there, untracked. Each
// file whose content is the task's commit's is the merge's own, and the
// repair takes it back; any other file (the user's) stays, and while it
// does, the task is left for a person to look at.
// mergeKilledMidCheckout makes task T with a.txt and b.txt committed,
// merges it and kills the merge while git writes a.txt into the main
// worktree, then takes the stopping filter away. It returns the task's
// path and tip and main's tip.
func mergeKilledMidCheckout(t *testing.T, s *testutil.Sandbox) (path, taskTip, mainTip string) {
	t.Helper()
	path = s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "a.txt"), "a\n")
	s.Git(path, "add", "a.txt")
	taskTip = commitFile(s, path, "b.txt", "b\n", "task work") // a.txt too
	mainTip = s.Git(s.Repo, "rev-parse", "main")
	cmd, exited := stopMidCheckout(t, s)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	os.Remove(filepath.Join(s.Repo, ".git", "info", "attributes"))
	s.Git(s.Repo, "config", "--unset", "filter.stop.smudge")
	return path, taskTip, mainTip
}

func TestMergeKilledMidCheckoutIsTakenBackByDoctor(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path, taskTip, mainTip := mergeKilledMidCheckout(t, s)
	if data, err := os.ReadFile(filepath.Join(s.Repo, "a.txt")); err != nil || string(data) != "a\n" {
		t.Fatalf("the killed merge did not stop mid-checkout: a.txt %q %v", data, err)
	}
	s.Write(filepath.Join(s.Repo, "mine.txt"), "the user's\n")
	if r := s.WT("doctor", "--fix"); r.Code != 1 || !strings.Contains(r.Stdout, "interrupted-merge") {
		t.Fatalf("doctor --fix with the user's file in the main worktree: %s", r)
	}
	if testutil.Exists(filepath.Join(s.Repo, "a.txt")) {
		t.Error("the merge's own a.txt was not taken back")
	}
	if data, err := os.ReadFile(filepath.Join(s.Repo, "mine.txt")); err != nil || string(data) != "the user's\n" {
		t.Fatalf("the user's file is gone: %v", err)
	}
	os.Remove(filepath.Join(s.Repo, "mine.txt"))
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix once the user's file is gone: %s", r)
	}
	if st := s.Git(s.Repo, "status", "--porcelain", "--untracked-files=all"); st != "" || s.Git(s.Repo, "rev-parse", "main") != mainTip {
		t.Fatalf("after the repair, main is at %s (was %s), its worktree:\n%s", s.Git(s.Repo, "rev-parse", "main"), mainTip, st)
	}
	if state := taskState(t, s); state != "active" || !testutil.Exists(filepath.Join(path, "a.txt")) {
		t.Fatalf("the task after the repair: state %q, or its worktree lost a.txt", state)
	}
	if r := s.WT("merge", "T"); r.Code != 0 || s.Git(s.Repo, "rev-parse", "main") != taskTip {
		t.Fatalf("merge after the repair: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the merge: %s", r)
	}
}

// A commit on the task after its merge was killed mid-checkout moves the
// branch on: the files the merge wrote into the main worktree are still
// told as its own, by the commit it merged, which the record keeps.
func TestMergeKilledMidCheckoutIsTakenBackAfterTheBranchMovedOn(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path, _, mainTip := mergeKilledMidCheckout(t, s)
	commitFile(s, path, "a.txt", "a, later\n", "the task goes on")
	s.WT("doctor", "--fix")
	if st := s.Git(s.Repo, "status", "--porcelain", "--untracked-files=all"); st != "" || s.Git(s.Repo, "rev-parse", "main") != mainTip {
		t.Fatalf("the killed merge's files stayed in the main worktree:\n%s", st)
	}
	if state := taskState(t, s); state != "active" {
		t.Fatalf("the task after the repair: state %q", state)
	}
}

// A task whose merge was killed mid-checkout may be ended by something
// other than doctor's merge repair: an rm of it (with or without --force),
// or, once its folder is gone, the repair of a task without a worktree.
// Each takes back the merge's files in the main worktree first: once the
// task is gone, nothing would tell them from the user's.
func TestEndingATaskWhoseMergeWasKilledMidCheckoutTakesItBack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		end  func(s *testutil.Sandbox, path string) testutil.Result
	}{
		{"rm", func(s *testutil.Sandbox, _ string) testutil.Result { return s.WT("rm", "T") }},
		{"rm --force", func(s *testutil.Sandbox, _ string) testutil.Result { return s.WT("rm", "--force", "T") }},
		{"doctor --fix, the folder gone", func(s *testutil.Sandbox, path string) testutil.Result {
			os.RemoveAll(path)
			return s.WT("doctor", "--fix")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path, _, mainTip := mergeKilledMidCheckout(t, s)
			if r := c.end(s, path); r.Code != 0 {
				t.Fatalf("%s after a merge killed mid-checkout: %s", c.name, r)
			}
			if st := s.Git(s.Repo, "status", "--porcelain", "--untracked-files=all"); st != "" || s.Git(s.Repo, "rev-parse", "main") != mainTip {
				t.Fatalf("the killed merge's files stayed in the main worktree:\n%s", st)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor afterwards: %s", r)
			}
		})
	}
}

// git creates each file it checks out, then writes its content: a merge
// killed in between leaves a file in the main worktree that is empty, or
// holds the start of the task's file. It is the merge's own (its whole
// content is in the task's commit) and is taken back with the rest. The
// test writes that file as the killed git leaves it: a kill does not land
// between two system calls on demand.
func TestMergeKilledWhileGitWroteAFileIsTakenBack(t *testing.T) {
	t.Parallel()
	for _, cut := range []string{"", "b"} {
		t.Run(strconv.Quote(cut), func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			_, _, mainTip := mergeKilledMidCheckout(t, s)
			s.Write(filepath.Join(s.Repo, "b.txt"), cut) // the task's b.txt is "b\n"
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix: %s", r)
			}
			if st := s.Git(s.Repo, "status", "--porcelain", "--untracked-files=all"); st != "" || s.Git(s.Repo, "rev-parse", "main") != mainTip {
				t.Fatalf("the killed merge's files stayed in the main worktree:\n%s", st)
			}
			if state := taskState(t, s); state != "active" {
				t.Fatalf("the task after the repair: state %q", state)
			}
		})
	}
}

// The same for a merge into another branch (--into) that a worktree has
// checked out: the repair takes the merge's files back from that
// worktree, not from the base's, and the branch stays where it was.
func TestMergeIntoAnotherBranchKilledMidCheckoutIsTakenBackThere(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "release")
	rel := filepath.Join(filepath.Dir(s.Repo), "rel")
	s.Git(s.Repo, "worktree", "add", "-q", rel, "release")
	releaseTip := s.Git(s.Repo, "rev-parse", "release")
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "a.txt"), "a\n")
	s.Git(path, "add", "a.txt")
	commitFile(s, path, "b.txt", "b\n", "task work")
	cmd, exited := stopMidCheckout(t, s, "--into", "release")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	os.Remove(filepath.Join(s.Repo, ".git", "info", "attributes"))
	s.Git(s.Repo, "config", "--unset", "filter.stop.smudge")
	if data, err := os.ReadFile(filepath.Join(rel, "a.txt")); err != nil || string(data) != "a\n" {
		t.Fatalf("the killed merge did not stop mid-checkout in %s: a.txt %q %v", rel, data, err)
	}
	r := s.WT("doctor", "--fix")
	if st := s.Git(rel, "status", "--porcelain", "--untracked-files=all"); st != "" || s.Git(s.Repo, "rev-parse", "release") != releaseTip {
		t.Fatalf("after doctor --fix (%s), release is at %s (was %s) and its worktree holds:\n%s", r, s.Git(s.Repo, "rev-parse", "release"), releaseTip, st)
	}
	if st := s.Git(s.Repo, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the repair touched the main worktree:\n%s", st)
	}
	if state := taskState(t, s); state != "active" || !testutil.Exists(filepath.Join(path, "a.txt")) {
		t.Fatalf("the task after the repair: state %q, or its worktree lost a.txt", state)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the repair: %s", r)
	}
}
