//go:build unix

// These tests protect crash repair (SPEC §7 "Crash repair never guesses"):
// a repair acts only on the record it examined, never deletes what an agent
// wrote, and clears what a killed git or git-wt left behind (a zombie
// creator, a stale index.lock, git's "initializing" lock, an init that
// outlived its git-wt, a merge stopped in its cleanup).
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

	"github.com/git-wt/git-wt/internal/leftover"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// procState is the state letter of process pid (R, S, Z, ...).
func procState(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

func TestZombieCreatorCountsAsDead(t *testing.T) {
	s := testutil.NewSandbox(t)
	cmd := stopAt(t, s, "new:checked-out", "new", "T")
	// Killed but not reaped: the creator is a zombie, as when its parent
	// (an agent runner) is slow to wait for it.
	cmd.Process.Signal(syscall.SIGKILL)
	waitFor(t, func() bool { return procState(cmd.Process.Pid) == "Z" })
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckCreation)) {
		t.Fatalf("doctor must see the stuck creation of a zombie creator: %s", r)
	}
	// new takes the task over at once instead of waiting for the zombie.
	quick := withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.lockTimeout", "GIT_CONFIG_VALUE_0=5s")
	if r := quick.WT("new", "T"); r.Code != 0 || !testutil.Exists(r.Out()+"/README.md") {
		t.Fatalf("new of a task whose creator is a zombie: %s", r)
	}
	cmd.Wait()
}

// stopAtUntil is stopAt for a process that goes on once the test creates
// the returned file. Its output is kept in cmd.Stdout, a *bytes.Buffer.
func stopAtUntil(t *testing.T, s *testutil.Sandbox, checkpoint string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	reached, release := filepath.Join(dir, "reached"), filepath.Join(dir, "go")
	cmd := s.Cmd(s.Repo, args...)
	cmd.Stdout = new(bytes.Buffer)
	cmd.Env = append(cmd.Env, task.CheckpointEnv+"="+checkpoint, task.CheckpointEnv+"_FILE="+reached, task.CheckpointEnv+"_GO="+release)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, func() bool { return testutil.Exists(reached) })
	return cmd, release
}

// A repair that examined a stuck creation acts on that record only: when
// the creation finished meanwhile (here: resumed by new), gc and doctor
// --fix leave the task alone, whether the agent has written into it yet
// (T) or not (U).
func TestRepairLeavesATaskThatMovedOn(t *testing.T) {
	for _, repair := range [][]string{{"gc"}, {"doctor", "--fix"}, {"doctor", "--fix", "--force"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			kill(stopAt(t, s, "new:checked-out", "new", "T"))
			kill(stopAt(t, s, "new:checked-out", "new", "U"))
			checker, release := stopAtUntil(t, s, "repair:examined", repair...)
			path := s.MustWT("new", "T").Out()
			s.Write(filepath.Join(path, "work.txt"), "the agent's work")
			other := s.MustWT("new", "U").Out()
			os.WriteFile(release, nil, 0o644)
			exitCode(checker)
			if !testutil.Exists(filepath.Join(path, "work.txt")) {
				t.Fatalf("%s deleted a task that new had finished, with the agent's file", repair)
			}
			if !testutil.Exists(filepath.Join(other, "README.md")) {
				t.Fatalf("%s deleted a task that new had finished", repair)
			}
			for _, slug := range []string{"T", "U"} {
				if state := readRecord(t, s, slug)["state"]; state != "active" {
					t.Fatalf("task %s in state %v after the race, want active", slug, state)
				}
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the race: %s", r)
			}
		})
	}
}

// A stuck creation whose worktree holds files its checkout did not write
// is kept, in state failed, even by doctor --fix --force.
func TestRollbackKeepsWhatTheCheckoutDidNotWrite(t *testing.T) {
	for _, cp := range []string{"new:worktree", "new:checked-out"} {
		t.Run(cp, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			kill(stopAt(t, s, cp, "new", "T"))
			path := readRecord(t, s, "T")["path"].(string)
			s.Write(filepath.Join(path, "work.txt"), "precious")
			r := s.WT("doctor", "--fix", "--force")
			if !testutil.Exists(filepath.Join(path, "work.txt")) {
				t.Fatalf("doctor --fix --force deleted a file the checkout did not write: %s", r)
			}
			if r.Code != 1 || !strings.Contains(r.Stdout, "kept") {
				t.Fatalf("doctor --fix --force must say it kept the task: %s", r)
			}
			if state := readRecord(t, s, "T")["state"]; state != "failed" {
				t.Fatalf("task state %v, want failed", state)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("a failed task is no problem for doctor: %s", r)
			}
			// Kept, it is a worktree on its branch with its files checked
			// out, as its record says, the stranger's file beside them.
			if head := s.Git(path, "symbolic-ref", "-q", "HEAD"); head != "refs/heads/wt/T" {
				t.Errorf("the kept worktree's HEAD is %q, not its branch", head)
			}
			if !testutil.Exists(filepath.Join(path, "README.md")) {
				t.Error("the kept worktree's checkout was not finished")
			}
		})
	}
}

// startInit starts `git wt init T` (in a process group of its own) with
// an init command that writes its pid to a file and sleeps, and returns
// once the init runs, with the init's pid.
func startInit(t *testing.T, s *testutil.Sandbox, args ...string) (*exec.Cmd, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "init-pid")
	s.Git(s.Repo, "config", "wt.init", "echo $$ >> "+pidFile+"; exec sleep 60")
	cmd := s.Cmd(s.Repo, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	var pid int
	waitFor(t, func() bool {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return pid > 0
	})
	return cmd, pid
}

// A killed `git wt init` of an existing task that holds work is an
// interrupted init, not a stuck creation: repair marks it failed and
// keeps it, even with --force, and git wt init runs it again.
func TestKilledInitOfAnExistingTaskKeepsIt(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "precious")
	cmd, initPID := startInit(t, s, "init", "T")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	syscall.Kill(initPID, syscall.SIGKILL)
	cmd.Wait()
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(task.InterruptedInit)) || strings.Contains(r.Stdout, string(task.StuckCreation)) {
		t.Fatalf("doctor after a killed init of an existing task: %s", r)
	}
	fix := s.WT("doctor", "--fix", "--force")
	if !testutil.Exists(filepath.Join(path, "work.txt")) {
		t.Fatal("doctor --fix --force deleted a task whose init was killed, with its work")
	}
	if state := readRecord(t, s, "T")["state"]; state != "failed" {
		t.Fatalf("task state %v, want failed; doctor --fix --force: %s", state, fix)
	}
	if r := s.WT("new", "T"); r.Code != 1 || !strings.Contains(r.Stderr, "git wt init") {
		t.Fatalf("new of a task whose init was killed must say to run git wt init: %s", r)
	}
	s.Git(s.Repo, "config", "wt.init", "true")
	if r := s.WT("init", "T"); r.Code != 0 {
		t.Fatalf("init again: %s", r)
	}
	if state := readRecord(t, s, "T")["state"]; state != "active" || !testutil.Exists(filepath.Join(path, "work.txt")) {
		t.Fatalf("after init again: state %v", state)
	}
}

// The same kill, then new or init straight away (no doctor): the task is
// kept and its setup can be run again.
func TestKilledInitIsRetriedWithoutDoctor(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "README.md"), "changed by the agent")
	cmd, initPID := startInit(t, s, "init", "T")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	syscall.Kill(initPID, syscall.SIGKILL)
	cmd.Wait()
	s.Git(s.Repo, "config", "wt.init", "true")
	if r := s.WT("new", "T"); r.Code != 1 || !strings.Contains(r.Stderr, "git wt init") {
		t.Fatalf("new of a task whose init was killed must say to run git wt init: %s", r)
	}
	if data, _ := os.ReadFile(filepath.Join(path, "README.md")); string(data) != "changed by the agent" {
		t.Fatalf("new overwrote the agent's change: %q", data)
	}
	if r := s.WT("init", "T"); r.Code != 0 {
		t.Fatalf("init again: %s", r)
	}
	if state := readRecord(t, s, "T")["state"]; state != "active" {
		t.Fatalf("after init again: state %v", state)
	}
}

// alive says whether process pid runs (a zombie has exited).
func alive(pid int) bool {
	st := procState(pid)
	return st != "" && st != "Z" && st != "X"
}

// The init dies with the git-wt that started it, even by SIGKILL of
// git-wt's process group (the init has a group of its own), and a retried
// new runs exactly one init: an init's own children are ended by the
// retry, from the process group the record keeps.
func TestInitDiesWithItsGitWt(t *testing.T) {
	for _, tc := range []struct{ name, first string }{
		{"exec", "exec sleep 60"},
		{"child", "sleep 60 & echo $! > " + "CHILD" + "; wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			dir := t.TempDir()
			pids, child := filepath.Join(dir, "pids"), filepath.Join(dir, "child")
			first := strings.ReplaceAll(tc.first, "CHILD", child)
			// The first run waits; later runs finish at once.
			s.Git(s.Repo, "config", "wt.init", "echo $$ >> "+pids+"; if [ $(wc -l < "+pids+") -eq 1 ]; then "+first+"; fi")
			cmd := s.Cmd(s.Repo, "new", "T")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
			var initPID, childPID int
			waitFor(t, func() bool {
				data, _ := os.ReadFile(pids)
				initPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
				if tc.name == "child" {
					data, _ = os.ReadFile(child)
					childPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
					return initPID > 0 && childPID > 0
				}
				return initPID > 0
			})
			// git-wt writes the init's process group into the record once
			// the init has started: from then on a repair can end it.
			waitFor(t, func() bool {
				init, _ := readRecord(t, s, "T")["init"].(map[string]any)
				return init["pgid"] != nil
			})
			t.Cleanup(func() {
				for _, pid := range []int{initPID, childPID} {
					if pid > 0 {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			waitFor(t, func() bool { return !alive(initPID) })
			if r := s.WT("new", "T"); r.Code != 0 {
				t.Fatalf("retried new: %s", r)
			}
			if childPID > 0 && alive(childPID) {
				t.Fatalf("the first init's child %d outlived the retried new", childPID)
			}
			data, _ := os.ReadFile(pids)
			if n := len(strings.Fields(string(data))); n != 2 {
				t.Fatalf("%d inits ran, want 2 (the killed one, then the retry): %q", n, data)
			}
		})
	}
}

// killGroupWhen starts git-wt with args in a process group of its own,
// waits until the file reached exists (a hook or filter of git's made it),
// and kills the whole group with SIGKILL, as a crash would.
func killGroupWhen(t *testing.T, s *testutil.Sandbox, reached string, args ...string) {
	t.Helper()
	cmd := s.Cmd(s.Repo, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	waitFor(t, func() bool { return testutil.Exists(reached) })
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	os.Remove(reached)
}

// slowFilter commits a file that goes through the filter "slow", and
// returns the file that the filter's clean or smudge step (set with
// blockFilter) creates when it runs.
func slowFilter(t *testing.T, s *testutil.Sandbox) string {
	s.Write(".gitattributes", "*.slow filter=slow\n")
	s.Write("a.slow", "data\n")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "a filtered file")
	return filepath.Join(t.TempDir(), "filter-reached")
}

// blockFilter makes the filter's step (clean or smudge) stop git until it
// is killed; "" lets it pass again.
func blockFilter(s *testutil.Sandbox, step, reached string) {
	if reached == "" {
		s.Git(s.Repo, "config", "--unset", "filter.slow."+step)
		return
	}
	s.Git(s.Repo, "config", "filter.slow."+step, "touch "+reached+"; exec sleep 60")
}

// A new killed during its checkout leaves git's index.lock: doctor names
// it, and the next new of the task deletes it and finishes the task.
func TestStaleIndexLockOfAKilledNew(t *testing.T) {
	s := testutil.NewSandbox(t)
	reached := slowFilter(t, s)
	blockFilter(s, "smudge", reached)
	killGroupWhen(t, s, reached, "new", "T")
	blockFilter(s, "smudge", "")
	path := readRecord(t, s, "T")["path"].(string)
	lock := filepath.Join(s.Repo, ".git", "worktrees", "T", "index.lock")
	if !testutil.Exists(lock) {
		t.Fatal("the killed checkout left no index.lock: the test does not test what it should")
	}
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(leftover.StaleIndexLock)) || !strings.Contains(r.Stdout, lock) {
		t.Fatalf("doctor must name the stale index.lock: %s", r)
	}
	if r := s.WT("new", "T"); r.Code != 0 || !testutil.Exists(filepath.Join(path, "a.slow")) {
		t.Fatalf("new after a kill during its checkout: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after new: %s", r)
	}
}

// A commit killed while git add ran leaves index.lock too: doctor --fix
// deletes it, and so does the next git wt commit.
func TestStaleIndexLockOfAKilledCommit(t *testing.T) {
	s := testutil.NewSandbox(t)
	reached := slowFilter(t, s)
	path := s.MustWT("new", "T").Out()
	lock := filepath.Join(s.Repo, ".git", "worktrees", "T", "index.lock")
	kill := func() {
		s.Write(filepath.Join(path, "a.slow"), "changed "+strconv.Itoa(os.Getpid())+"\n")
		s.Write(filepath.Join(path, "b.slow"), "new\n")
		blockFilter(s, "clean", reached)
		killGroupWhen(t, s, reached, "commit", "T", "-m", "work")
		blockFilter(s, "clean", "")
		if !testutil.Exists(lock) {
			t.Fatal("the killed commit left no index.lock: the test does not test what it should")
		}
	}
	kill()
	r := s.WT("doctor", "--fix")
	if r.Code != 0 || !strings.Contains(r.Stdout, string(leftover.StaleIndexLock)) || testutil.Exists(lock) {
		t.Fatalf("doctor --fix must delete the stale index.lock: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after --fix: %s", r)
	}
	kill()
	if r := s.WT("commit", "T", "-m", "work"); r.Code != 0 {
		t.Fatalf("commit after a killed commit: %s", r)
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" || !testutil.Exists(filepath.Join(path, "b.slow")) {
		t.Fatalf("the work was not committed: %q", st)
	}
}

// A live git's index.lock is no leftover: doctor leaves it alone.
func TestLiveIndexLockIsNotStale(t *testing.T) {
	s := testutil.NewSandbox(t)
	reached := slowFilter(t, s)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "b.slow"), "new\n")
	blockFilter(s, "clean", reached)
	add := startIn(t, path, "git", "add", "-A")
	waitFor(t, func() bool { return testutil.Exists(reached) })
	if r := s.WT("doctor", "--fix"); r.Code != 0 || strings.Contains(r.Stdout, string(leftover.StaleIndexLock)) {
		t.Fatalf("doctor took a running git's lock for stale: %s", r)
	}
	if !testutil.Exists(filepath.Join(s.Repo, ".git", "worktrees", "T", "index.lock")) {
		t.Fatal("doctor --fix deleted a running git's index.lock")
	}
	syscall.Kill(add.Process.Pid, syscall.SIGKILL)
}

// A kill inside git worktree add leaves git's own "initializing" lock on
// the admin entry: the next new of the task unlocks it, and doctor reports
// and --fix unlocks one left on a task.
func TestInitializingLockOfAKilledWorktreeAdd(t *testing.T) {
	s := testutil.NewSandbox(t)
	reached := filepath.Join(t.TempDir(), "reached")
	// git worktree add sets the new worktree's HEAD with a git update-ref
	// (GIT_DIR: its admin entry): its reference-transaction hook stops it.
	hook := filepath.Join(s.Repo, ".git", "hooks", "reference-transaction")
	s.Write(hook, "#!/bin/sh\ncase \"$GIT_DIR\" in */worktrees/T) touch "+reached+"; exec sleep 60;; esac\n")
	os.Chmod(hook, 0o755)
	killGroupWhen(t, s, reached, "new", "T")
	os.Remove(hook)
	path := readRecord(t, s, "T")["path"].(string)
	if locked, _ := os.ReadFile(filepath.Join(s.Repo, ".git", "worktrees", "T", "locked")); strings.TrimSpace(string(locked)) != "initializing" {
		t.Fatalf("the killed worktree add left no initializing lock (%q): the test does not test what it should", locked)
	}
	if r := s.WT("new", "T"); r.Code != 0 {
		t.Fatalf("new after a kill inside git worktree add: %s", r)
	}
	if r := s.WT("rm", "T"); r.Code != 0 || testutil.Exists(path) {
		t.Fatalf("the task stayed locked by the killed worktree add: %s", r)
	}

	// The same lock on an active task: doctor reports it, --fix unlocks.
	path = s.MustWT("new", "U").Out()
	s.Git(s.Repo, "worktree", "lock", "--reason", "initializing", path)
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(leftover.InitializingLock)) {
		t.Fatalf("doctor must report git's initializing lock: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	if r := s.WT("rm", "U"); r.Code != 0 {
		t.Fatalf("rm after doctor --fix: %s", r)
	}
	// A lock with any other reason is the user's: left alone.
	path = s.MustWT("new", "V").Out()
	s.Git(s.Repo, "worktree", "lock", "--reason", "on a usb disk", path)
	if r := s.WT("doctor", "--fix"); r.Code != 0 || strings.Contains(r.Stdout, string(leftover.InitializingLock)) {
		t.Fatalf("doctor --fix touched a user's lock: %s", r)
	}
	if r := s.WT("rm", "V"); r.Code != 3 {
		t.Fatalf("rm of a locked task: %s", r)
	}
}

// A merge into another branch (--into) killed in its cleanup landed in
// that branch, not in the base: doctor --fix finishes the cleanup (the
// worktree, the branch, the record), as it does for a merge into the base.
func TestInterruptedMergeIntoAnotherBranchIsFinished(t *testing.T) {
	t.Parallel()
	s, path, taskTip, _ := mergeSetup(t, false)
	s.Git(s.Repo, "branch", "release")
	kill(stopAt(t, s, "merge:cleanup", "merge", "--into", "release", "T"))
	if !s.GitOK(s.Repo, "merge-base", "--is-ancestor", taskTip, "release") {
		t.Fatal("the merge into release did not land before its cleanup: the test tests nothing")
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix after a merge into release killed in its cleanup: %s", r)
	}
	gone(t, s, "T", path)
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the fix: %s", r)
	}
}

// A merge killed in its cleanup (or before it merged) is finished by
// doctor --fix: a merge that landed is cleaned up as merge would have
// (worktree, merged branch, record), and one that did not puts the task
// back to active, to be merged again.
func TestInterruptedMergeIsFinished(t *testing.T) {
	for _, tc := range []struct {
		checkpoint string
		landed     bool
		state      string // the state the kill leaves
		problem    string // what doctor reports
	}{
		{"merge:cleanup", true, "merging", string(task.InterruptedMerge)},
		// The cleanup had begun removing: the worktree folder already
		// moved to the trash, the task in state removing.
		{"rm:renamed", true, "removing", string(task.StuckRemoval)},
		{"merge:merging", false, "merging", string(task.InterruptedMerge)},
	} {
		t.Run(tc.checkpoint, func(t *testing.T) {
			s, path, taskTip, _ := mergeSetup(t, false)
			kill(stopAt(t, s, tc.checkpoint, "merge", "T"))
			if state := taskState(t, s); state != tc.state {
				t.Fatalf("state %q after a killed merge, want %s", state, tc.state)
			}
			r := s.WT("doctor")
			if r.Code != 1 || !strings.Contains(r.Stdout, tc.problem) {
				t.Fatalf("doctor after a killed merge: %s", r)
			}
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix after a merge killed at %s: %s", tc.checkpoint, r)
			}
			landed := s.GitOK(s.Repo, "merge-base", "--is-ancestor", taskTip, "main")
			if landed != tc.landed {
				t.Fatalf("merge landed: %v, want %v", landed, tc.landed)
			}
			if tc.landed {
				gone(t, s, "T", path)
				if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
					t.Fatal("the merged branch was kept")
				}
			} else {
				if state := taskState(t, s); state != "active" || !testutil.Exists(filepath.Join(path, "task.txt")) {
					t.Fatalf("a merge that did not land must leave the task active and whole: %q", state)
				}
				s.MustWT("merge", "T")
				gone(t, s, "T", path)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the fix: %s", r)
			}
		})
	}
}

// The reproduction of issue 12 (item 1), smaller: gc racing new, each
// new's agent writing into its task at once. Before repairs claimed what
// they examined, about one race in ten deleted a finished task with the
// agent's file; TestRepairLeavesATaskThatMovedOn holds the same step by
// step.
func TestGCRacingNewLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a race, run many times")
	}
	s := testutil.NewSandbox(t)
	for i := 0; i < 8; i++ {
		s.MustWT("new", "-q", "idle"+strconv.Itoa(i))
	}
	const rounds = 12
	for i := 0; i < rounds; i++ {
		agent := exec.Command("sh", "-c", `p=$("$0" new -q "$1") && echo work > "$p/work.txt"`, filepath.Join(testutil.BinDir(t), "git-wt"), "u"+strconv.Itoa(i))
		agent.Dir, agent.Env = s.Repo, s.Env
		gc := s.Cmd(s.Repo, "gc")
		startTogether(t, []*exec.Cmd{agent, gc})
		if code := exitCode(agent); code != 0 {
			t.Fatalf("new u%d exited %d", i, code)
		}
		exitCode(gc)
	}
	for i := 0; i < rounds; i++ {
		path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "u"+strconv.Itoa(i))
		if !testutil.Exists(filepath.Join(path, "work.txt")) {
			t.Errorf("task u%d lost the agent's file to gc", i)
		} else if state := readRecord(t, s, "u"+strconv.Itoa(i))["state"]; state != "active" {
			t.Errorf("gc changed the finished task u%d to state %v", i, state)
		}
	}
}

// The same for an orphan: doctor found a record whose folder was gone;
// before it dropped the record, new made the task again. The task stays.
func TestOrphanRepairLeavesATaskMadeAgain(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s") // orphans go at once
	path := s.MustWT("new", "T").Out()
	os.RemoveAll(path)
	checker, release := stopAtUntil(t, s, "repair:examined", "doctor", "--fix")
	if r := s.MustWT("new", "T"); r.Out() != path {
		t.Fatalf("new made the task elsewhere: %s", r)
	}
	os.WriteFile(release, nil, 0o644)
	exitCode(checker)
	if !testutil.Exists(filepath.Join(path, "README.md")) {
		t.Fatal("doctor --fix removed a task that new had made again")
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the race: %s", r)
	}
}

// The same for a leftover branch (the stress test found worktrees whose
// HEAD named a deleted branch): doctor and gc found wt/T with no record
// and no worktree; before they deleted it, new made task T on it. The
// branch stays, and the task with it, whole.
func TestLeftoverBranchRepairLeavesABranchATaskTookMeanwhile(t *testing.T) {
	for _, repair := range [][]string{{"gc"}, {"doctor", "--fix"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			s.Git(s.Repo, "config", "wt.orphanGrace", "0s")
			s.Git(s.Repo, "branch", "wt/T") // merged, no record, no worktree: leftover
			checker, release := stopAtUntil(t, s, "repair:examined", repair...)
			path := s.MustWT("new", "T").Out()
			os.WriteFile(release, nil, 0o644)
			exitCode(checker)
			if out, err := exec.Command("git", "-C", s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T").Output(); err != nil {
				t.Fatalf("%s deleted the branch of task T, made meanwhile (%v %s); its worktree's HEAD names nothing", repair, err, out)
			}
			if got := s.Git(path, "symbolic-ref", "HEAD"); got != "refs/heads/wt/T" {
				t.Errorf("task T's worktree is on %q", got)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the race: %s", r)
			}
		})
	}
}

// And the other order: new saw wt/T and wrote its record, then the branch
// was deleted (by a person, or a repair that judged it before the record
// existed) before new added the worktree. new refuses (exit 3, one line)
// and takes back its record and folder, rather than make a worktree whose
// HEAD names nothing.
func TestNewOnABranchDeletedMeanwhileRefusesAndLeavesNothing(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "wt/T")
	creator, release := stopAtUntil(t, s, "new:branch-seen", "new", "T")
	s.Git(s.Repo, "branch", "-D", "wt/T")
	os.WriteFile(release, nil, 0o644)
	if code := exitCode(creator); code != 3 {
		t.Fatalf("new on a branch deleted meanwhile exited %d, want 3", code)
	}
	if r := s.MustWT("log", "T"); !strings.Contains(r.Stdout, "was deleted while task") {
		t.Errorf("the log does not say why the creation was rolled back:\n%s", r.Stdout)
	}
	if r := s.MustWT("list", "--json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("the refused creation left a task: %s", r.Stdout)
	}
	if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("the refused creation left a worktree:\n%s", got)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the refusal: %s", r)
	}
}

// A git killed in the middle of a ref transaction leaves the ref's lock
// file (the stress test met refs/heads/wt/T.lock and
// refs/git-wt/tasks/T.lock after a killed rm): every later update of
// that ref fails until it goes. doctor reports it, --fix deletes it, and
// the task can be removed again. (The lock of the record's own ref is
// deleted by the next write of the record:
// TestTheNextRecordWriteDeletesAStaleRecordLock.)
func TestStaleRefLocksOfAKilledGit(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	for _, ref := range []string{"refs/heads/wt/T", "refs/git-wt/tasks/T"} {
		s.Write(filepath.Join(s.Repo, ".git", ref+".lock"), s.Git(s.Repo, "rev-parse", ref)+"\n")
	}
	r := s.WT("doctor")
	if r.Code != 1 || strings.Count(r.Stdout, string(leftover.StaleRefLock)) != 2 {
		t.Fatalf("doctor must report both stale ref locks: %s", r)
	}
	if r := s.WT("rm", "T"); r.Code == 0 {
		t.Fatalf("rm with the task's branch locked must fail, or the test tests nothing: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	if r := s.WT("rm", "T"); r.Code != 0 || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatalf("rm after doctor --fix: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the repair: %s", r)
	}
}

// A git-wt killed in the middle of writing a task's record leaves git's
// lock file on the record's ref beside the task it was changing. Every
// repair of the task writes that ref, so doctor --fix deletes the stale
// lock files first, whatever order it lists the problems in.
func TestDoctorFixesStaleRefLocksBeforeTheTasksBehindThem(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	cmd, initPID := startInit(t, s, "init", "T")
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	syscall.Kill(initPID, syscall.SIGKILL)
	cmd.Wait()
	ref := "refs/git-wt/tasks/T"
	s.Write(filepath.Join(s.Repo, ".git", ref+".lock"), s.Git(s.Repo, "rev-parse", ref)+"\n")
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.InterruptedInit)) || !strings.Contains(r.Stdout, string(leftover.StaleRefLock)) {
		t.Fatalf("doctor must report the interrupted init and the stale lock: %s", r)
	}
	fix := s.WT("doctor", "--fix")
	if state := readRecord(t, s, "T")["state"]; state != "failed" || testutil.Exists(filepath.Join(s.Repo, ".git", ref+".lock")) {
		t.Fatalf("task state %v, want failed, and no lock file left; doctor --fix: %s", state, fix)
	}
	if !testutil.Exists(path) {
		t.Fatal("the repair removed the task's worktree")
	}
}

// A new killed inside git worktree add, after git wrote the all-zero id
// into the worktree's HEAD and before it pointed HEAD anywhere, or while
// it wrote that id (git writes it in place: the file may be empty or cut
// short), leaves a worktree every git command fails in (git fsck:
// "detached HEAD points at nothing", "invalid worktrees/T/HEAD"). The
// repair of the stuck creation points HEAD at the task's branch first, so
// that it can judge the files and fsck is clean again — here a file an
// agent wrote keeps the task, marked failed.
func TestStuckCreationWithAnUnbornHeadIsRepaired(t *testing.T) {
	for name, head := range map[string]string{"all-zero": strings.Repeat("0", 40) + "\n", "empty": "", "cut short": "0000000"} {
		t.Run(name, func(t *testing.T) { testUnbornHeadRepair(t, head) })
	}
}

func testUnbornHeadRepair(t *testing.T, head string) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "agent.txt"), "work\n")
	rec := readRecord(t, s, "T")
	rec["state"], rec["creator_pid"], rec["creator_start"] = "creating", 999999999, ""
	writeRecord(t, s, "T", rec)
	s.Write(filepath.Join(s.Repo, ".git", "worktrees", "T", "HEAD"), head)
	if s.GitOK(s.Repo, "fsck") {
		t.Fatalf("git fsck passes with HEAD %q: the test does not test what it should", head)
	}
	s.WT("doctor", "--fix")
	if !s.GitOK(s.Repo, "fsck") {
		t.Fatalf("git fsck after doctor --fix:\n%s", s.WT("doctor"))
	}
	if state := readRecord(t, s, "T")["state"]; state != "failed" || !testutil.Exists(filepath.Join(path, "agent.txt")) {
		t.Fatalf("the task with an agent's file: state %v, file kept %v", state, testutil.Exists(filepath.Join(path, "agent.txt")))
	}
	if head := s.Git(path, "symbolic-ref", "HEAD"); head != "refs/heads/wt/T" {
		t.Fatalf("HEAD after the repair: %s", head)
	}
}

// A git wt merge killed while git merged in the main worktree leaves the
// main worktree's index.lock, a git wt commit killed in git's
// auto-maintenance its maintenance.lock, a merge killed as it moved HEAD
// ORIG_HEAD.lock, and a git gc --auto killed as it wrote gc.pid its
// gc.pid.lock: doctor --fix deletes them when no git of the repository
// could still own them.
func TestStaleIndexLockOfTheMainWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, name := range []string{"index.lock", "objects/maintenance.lock", "ORIG_HEAD.lock", "gc.pid.lock"} {
		lock := filepath.Join(s.Repo, ".git", name)
		s.Write(lock, "")
		if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(leftover.StaleRefLock)) {
			t.Fatalf("doctor must report the stale %s: %s", name, r)
		}
		if r := s.WT("doctor", "--fix"); r.Code != 0 || testutil.Exists(lock) {
			t.Fatalf("doctor --fix must delete %s: %s", name, r)
		}
	}
}

// A merge or rebase killed in a task's worktree as it moved HEAD leaves
// ORIG_HEAD.lock in the task's admin dir: the next merge or rebase there
// fails until it goes.
func TestStaleOrigHeadLockOfATask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	lock := filepath.Join(s.Repo, ".git", "worktrees", "T", "ORIG_HEAD.lock")
	s.Write(lock, "")
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, "ORIG_HEAD.lock") {
		t.Fatalf("doctor must report the stale ORIG_HEAD.lock: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 || testutil.Exists(lock) {
		t.Fatalf("doctor --fix must delete ORIG_HEAD.lock: %s", r)
	}
}

// A git worktree add killed as it wrote the admin entry's commondir file
// leaves it empty, and then every git worktree command of the repository
// fails. doctor reads the files itself, reports it, and --fix writes what
// git writes there; then the rest is diagnosed as usual.
func TestEmptyCommondirOfAKilledWorktreeAddIsRepaired(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	commondir := filepath.Join(s.Repo, ".git", "worktrees", "T", "commondir")
	s.Write(commondir, "")
	if s.GitOK(s.Repo, "worktree", "list") {
		t.Fatal("git lists worktrees with an empty commondir: the test tests nothing")
	}
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(leftover.BrokenAdminEntry)) {
		t.Fatalf("doctor must report the broken admin entry: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	if !s.GitOK(s.Repo, "worktree", "list") {
		t.Fatal("git still cannot list worktrees after doctor --fix")
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the repair: %s", r)
	}
	s.MustWT("rm", "T")
}

// A removal stopped as git deleted a task's admin entry, or a git that
// wrote its index.lock into the entry as it went, leaves an entry without
// its gitdir file: git lists no worktree for it, and the stress test found
// that index.lock after doctor --fix. doctor reports it and --fix deletes
// it. An entry a task's .git file still names (a move stopped as git
// rewrote gitdir) holds that task's index and is left; so is one that
// could still serve a worktree git-wt did not make (a plain git worktree
// whose gitdir went, with staged work): reported, never deleted.
func TestAnAdminEntryGitNoLongerListsIsDeleted(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	s.MustWT("rm", "T")
	left := filepath.Join(s.Repo, ".git", "worktrees", "T")
	s.Write(filepath.Join(left, "HEAD"), "ref: refs/heads/wt/T\n")
	s.Write(filepath.Join(left, "index.lock"), "")
	s.MustWT("new", "U")
	named := filepath.Join(s.Repo, ".git", "worktrees", "U")
	s.Write(filepath.Join(named, "gitdir"), "")
	mine := filepath.Join(t.TempDir(), "mine")
	s.Git(s.Repo, "worktree", "add", "-q", mine)
	s.Write(filepath.Join(mine, "staged.txt"), "work\n")
	s.Git(mine, "add", "staged.txt")
	plain := filepath.Join(s.Repo, ".git", "worktrees", "mine")
	os.Remove(filepath.Join(plain, "gitdir"))
	for _, dir := range []string{left, named, plain} {
		ageAll(t, dir, time.Minute)
	}
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(leftover.UnlistedAdminEntry)+": "+left) || strings.Contains(r.Stdout, named+":") {
		t.Fatalf("doctor must report the unlisted entry of the removed task, and not the one task U names: %s", r)
	}
	if !strings.Contains(r.Stdout, string(leftover.UnlistedAdminEntry)+": "+plain) {
		t.Errorf("doctor does not report the plain worktree's unlisted entry: %s", r)
	}
	s.WT("gc")
	s.WT("doctor", "--fix")
	if testutil.Exists(left) {
		t.Fatal("doctor --fix left the admin entry git no longer lists")
	}
	if !testutil.Exists(filepath.Join(named, "index")) {
		t.Fatal("doctor --fix deleted the admin entry task U's .git file names, and its index")
	}
	if !testutil.Exists(filepath.Join(plain, "index")) || !strings.Contains(s.Git(mine, "status", "--porcelain"), "A  staged.txt") {
		t.Fatal("gc or doctor --fix deleted the admin entry of a plain git worktree, and its staged work")
	}
}

// ageAll sets the times of dir and of everything in it to age ago.
func ageAll(t *testing.T, dir string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			err = os.Chtimes(p, when, when)
		}
		return err
	})
}

// A lock file on the record ref or the branch of a task about to be made,
// left by a git killed in the middle of another new's transaction, no
// longer fails every later new of that task with git's "File exists":
// new judges it as doctor does, deletes it, and makes the task.
func TestNewGoesPastAStaleLockOnItsRefs(t *testing.T) {
	for _, ref := range []string{"refs/git-wt/tasks/T", "refs/heads/wt/T"} {
		t.Run(ref, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			lock := filepath.Join(s.Repo, ".git", filepath.FromSlash(ref)+".lock")
			s.Write(lock, "")
			r := s.WT("new", "T", "--no-init")
			if r.Code != 0 || testutil.Exists(lock) {
				t.Fatalf("new with a stale %s.lock: %s", ref, r)
			}
			if !strings.Contains(r.Stderr, "deleted "+lock) {
				t.Errorf("new does not say it deleted the stale lock: %s", r)
			}
		})
	}
}

// A lock file on a task's branch, left by a git killed as it moved the
// branch, no longer fails every commit of the task until a doctor --fix:
// commit judges it as doctor does, deletes it, and commits.
func TestCommitGoesPastAStaleLockOnItsBranch(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	lock := filepath.Join(s.Repo, ".git", "refs", "heads", "wt", "T.lock")
	s.Write(lock, "")
	r := s.WT("commit", "T", "-m", "work")
	if r.Code != 0 || testutil.Exists(lock) || !strings.Contains(r.Stderr, "deleted "+lock) {
		t.Fatalf("commit with a stale lock on its branch: %s", r)
	}
	if got := s.Git(s.Repo, "log", "-1", "--format=%s", "wt/T"); got != "work" {
		t.Fatalf("the branch's last commit is %q, want the commit", got)
	}
}

// An agent can write refs: with a link at .git/refs/heads/wt to a project
// of the user's, git meets that project's Cargo.lock as the lock of the
// branch wt/Cargo, and new deletes nothing outside the repository.
func TestNewDeletesNoLockFileThroughALinkInRefs(t *testing.T) {
	s := testutil.NewSandbox(t)
	project := t.TempDir()
	cargo := filepath.Join(project, "Cargo.lock")
	s.Write(cargo, "# the user's lock file\n")
	if err := os.Symlink(project, filepath.Join(s.Repo, ".git", "refs", "heads", "wt")); err != nil {
		t.Fatal(err)
	}
	r := s.WT("new", "Cargo", "--no-init")
	if !testutil.Exists(cargo) {
		t.Fatalf("new deleted %s through the link in refs: %s", cargo, r)
	}
}

// A lock file on a task's record ref, left by a git killed as it wrote
// the record, no longer stops the next command that writes the record:
// the writer judges it as doctor does, deletes it, and writes.
func TestTheNextRecordWriteDeletesAStaleRecordLock(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	lock := filepath.Join(s.Repo, ".git", "refs", "git-wt", "tasks", "T.lock")
	s.Write(lock, s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/T")+"\n")
	if r := s.WT("lock", "T", "--reason", "r"); r.Code != 0 {
		t.Fatalf("lock with a stale record lock: %s", r)
	}
	if testutil.Exists(lock) || readRecord(t, s, "T")["locked"] != true {
		t.Fatal("the stale lock file is still there, or the record was not written")
	}
}

// git wt merge --rebase rebases the task's branch in its own worktree. A
// merge killed there leaves the worktree mid-rebase, on a detached HEAD:
// doctor --fix aborts that rebase (the merge's own, the task being in
// state merging), so the branch and the worktree are as before the merge.
func TestInterruptedRebaseMergeIsTakenBack(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "shared.txt", "task's\n", "task")
	commitFile(s, s.Repo, "shared.txt", "base's\n", "base")
	tip := s.Git(path, "rev-parse", "HEAD")
	if s.GitOK(path, "rebase", "main") {
		t.Fatal("the rebase did not stop on its conflict: the test tests nothing")
	}
	rec := readRecord(t, s, "T")
	rec["state"], rec["creator_pid"], rec["creator_start"] = "merging", 999999999, ""
	writeRecord(t, s, "T", rec)
	s.WT("doctor", "--fix")
	if !s.GitOK(path, "symbolic-ref", "-q", "HEAD") || s.Git(path, "symbolic-ref", "HEAD") != "refs/heads/wt/T" {
		t.Fatal("after doctor --fix the worktree is not on the task's branch")
	}
	if got := s.Git(path, "rev-parse", "HEAD"); got != tip || taskState(t, s) != "active" {
		t.Fatalf("branch at %s (want %s), state %s", got, tip, taskState(t, s))
	}
}

// A repair reads git's worktrees before the records. An rm that ends in
// between leaves it an admin entry (as read) with no record and no folder:
// an entry to prune. When new makes the task again before the repair gets
// to it, at the same path, that entry is the new task's, and its folder
// (the agent's work in it) must be left alone.
func TestPruneOfAnEntryLeavesATaskMadeAgainAtItsPath(t *testing.T) {
	for _, repair := range [][]string{{"doctor", "--fix"}, {"gc"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			dir := t.TempDir()
			reached, fifo := filepath.Join(dir, "reached"), filepath.Join(dir, "go-on")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			goOn := func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the repair reads
				if err != nil {
					t.Fatal(err)
				}
				w.Close()
			}
			at := func(name string) bool { data, _ := os.ReadFile(reached); return string(data) == name }
			cmd := s.Cmd(s.Repo, repair...)
			cmd.Env = append(cmd.Env, task.CheckpointEnv+"=doctor:worktrees,repair:examined", task.CheckpointEnv+"_FILE="+reached, task.CheckpointEnv+"_FIFO="+fifo)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			waitFor(t, func() bool { return at("doctor:worktrees") })
			s.MustWT("rm", "T")
			goOn()
			waitFor(t, func() bool { return at("repair:examined") })
			if again := s.MustWT("new", "T").Out(); again != path {
				t.Fatalf("made again at %s, not %s", again, path)
			}
			s.Write(filepath.Join(path, "work.txt"), "the agent's")
			goOn()
			cmd.Wait()
			if data, err := os.ReadFile(filepath.Join(path, "work.txt")); err != nil || string(data) != "the agent's" {
				t.Fatalf("the task made again lost its work: %v", err)
			}
			if !strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), "worktree "+path+"\n") {
				t.Fatal("git's admin entry of the task made again is gone")
			}
		})
	}
}

// The rollback of a stuck creation counts the files its checkout did not
// write, then removes the worktree. An agent (git wt exec's command, or a
// shell that got the path) that writes into the worktree in between must
// not lose its file: the removal looks again at the folder moved aside,
// and a stuck creation that holds someone's files is kept (failed).
func TestRollbackKeepsAFileWrittenAfterItsCount(t *testing.T) {
	for _, repair := range [][]string{{"doctor", "--fix"}, {"gc"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			kill(stopAt(t, s, "new:checked-out", "new", "T"))
			path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
			cmd, release := stopAtUntil(t, s, "repair:rollback", repair...)
			s.Write(filepath.Join(path, "late.txt"), "late")
			os.WriteFile(release, nil, 0o644)
			exitCode(cmd)
			if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late" {
				t.Fatalf("the file written during the rollback is gone: %v", err)
			}
			if st := recordState(s, "T"); st != "failed" {
				t.Fatalf("record state %q, want failed (kept for a person)", st)
			}
			trashIsEmpty(t, path)
		})
	}
}
