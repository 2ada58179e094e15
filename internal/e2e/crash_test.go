//go:build unix

// These tests protect recovery from crashes: a git-wt killed at any step of
// new or rm, or interrupted with Ctrl-C, leaves a state that doctor reports
// and doctor --fix or gc repairs, and no file the user wrote is lost.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// stopAt starts git-wt with args, waits until it reaches checkpoint, and
// returns it, still running.
func stopAt(t *testing.T, s *testutil.Sandbox, checkpoint string, args ...string) *exec.Cmd {
	t.Helper()
	reached := filepath.Join(t.TempDir(), "reached")
	cmd := s.Cmd(s.Repo, args...)
	cmd.Env = append(cmd.Env, task.CheckpointEnv+"="+checkpoint, task.CheckpointEnv+"_FILE="+reached)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, func() bool { return testutil.Exists(reached) })
	return cmd
}

func kill(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

func TestKilledNewIsRepairedByDoctor(t *testing.T) {
	for _, cp := range []string{"new:record", "new:worktree", "new:checked-out"} {
		t.Run(cp, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			kill(stopAt(t, s, cp, "new", "T"))
			r := s.WT("doctor")
			if r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckCreation)) {
				t.Fatalf("doctor after a kill at %s: %s", cp, r)
			}
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix: %s", r)
			}
			assertNothingLeft(t, s)
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the fix: %s", r)
			}
			s.MustWT("new", "T")
			consistent(t, s)
		})
	}
}

func TestKilledNewIsRepairedByGCOrResumedByNew(t *testing.T) {
	s := testutil.NewSandbox(t)
	kill(stopAt(t, s, "new:worktree", "new", "A"))
	kill(stopAt(t, s, "new:checked-out", "new", "B"))
	if r := s.WT("gc"); r.Code != 0 || !strings.Contains(r.Stdout, "stuck-creation") {
		t.Fatalf("gc: %s", r)
	}
	assertNothingLeft(t, s)

	kill(stopAt(t, s, "new:checked-out", "new", "C"))
	// The agent restarts and asks for its task again: it gets it.
	r := s.MustWT("new", "C")
	if !testutil.Exists(filepath.Join(r.Out(), "README.md")) {
		t.Fatalf("resumed task is not checked out: %s", r)
	}
	// Killed before the checkout, the worktree is registered but detached
	// and empty: resumed, it is on its branch and checked out.
	kill(stopAt(t, s, "new:worktree", "new", "D"))
	r = s.MustWT("new", "D")
	if !testutil.Exists(filepath.Join(r.Out(), "README.md")) || s.Git(r.Out(), "symbolic-ref", "HEAD") != "refs/heads/wt/D" {
		t.Fatalf("the task resumed after a kill before its checkout is not on its branch, checked out: %s", r)
	}
	if n := consistent(t, s); n != 2 {
		t.Fatalf("%d tasks", n)
	}
}

func TestInterruptedNewRollsBack(t *testing.T) {
	for _, cp := range []string{"new:record", "new:worktree", "new:checked-out"} {
		t.Run(cp, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			cmd := stopAt(t, s, cp, "new", "T")
			cmd.Process.Signal(os.Interrupt)
			if code := exitCode(cmd); code != 1 {
				t.Fatalf("interrupted new exited %d", code)
			}
			assertNothingLeft(t, s)
			if testutil.Exists(filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")) {
				t.Fatal("the worktree folder was left behind")
			}
			// The event log keeps the task: git wt log T finds the rollback.
			if r := s.WT("log", "T"); r.Code != 0 || !strings.Contains(r.Stdout, "rolled-back") {
				t.Fatalf("git wt log T after an interrupted new: %s", r)
			}
		})
	}
}

func TestKilledRmLosesNothing(t *testing.T) {
	for _, cp := range []string{"rm:renamed", "rm:unregistered"} {
		t.Run(cp, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			commit := commitFile(s, path, "work.txt", "precious", "work")
			kill(stopAt(t, s, cp, "rm", "T"))
			if r := s.WT("doctor"); r.Code != 1 {
				t.Fatalf("doctor after a kill at %s: %s", cp, r)
			}
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix: %s", r)
			}
			if got := s.Git(s.Repo, "rev-parse", "refs/heads/wt/T"); got != commit {
				t.Fatalf("the task's commit is lost: branch at %q", got)
			}
			if s.Git(s.Repo, "show", commit+":work.txt") != "precious" {
				t.Fatal("the user's file is lost")
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the fix: %s", r)
			}
			if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), ".git-wt-trash")); len(entries) != 0 {
				t.Fatal("trash left behind")
			}
		})
	}
}

func TestDeadCreatorIsToldApartFromALiveOne(t *testing.T) {
	s := testutil.NewSandbox(t)
	live := stopAt(t, s, "new:checked-out", "new", "T")
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("a creation in progress is not a problem: %s", r)
	}
	// A record whose creator pid is alive but started at another time is
	// a reused pid: the creator is dead.
	rec := readRecord(t, s, "T")
	rec["creator_start"] = "2000-01-01T00:00:00Z"
	writeRecord(t, s, "T", rec)
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckCreation)) {
		t.Fatalf("a reused pid must count as dead: %s", r)
	}
	kill(live)
}

func TestKilledDuringInitIsRepairedByDoctor(t *testing.T) {
	s := testutil.NewSandbox(t)
	started := filepath.Join(t.TempDir(), "init-pid")
	s.Git(s.Repo, "config", "wt.init", "echo $$ > "+started+" && exec sleep 60")
	cmd := s.Cmd(s.Repo, "new", "T")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { data, _ := os.ReadFile(started); return strings.HasSuffix(string(data), "\n") })
	// The agent and everything it started are killed.
	data, _ := os.ReadFile(started)
	initPID := strings.TrimSpace(string(data))
	kill(cmd)
	system("kill", "-9", initPID)
	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckCreation)) || !strings.Contains(r.Stdout, "initializing") {
		t.Fatalf("doctor after a kill during init: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	assertNothingLeft(t, s)
}

// A repair killed while it compared a stuck creation's files against a
// temporary index leaves that index inside the repository, never in the
// system's temp dir, and a later repair deletes it once it is old.
func TestKilledRepairLeavesNothingInTheTempDir(t *testing.T) {
	s := testutil.NewSandbox(t)
	kill(stopAt(t, s, "new:checked-out", "new", "T"))
	tmp := t.TempDir()
	reached := filepath.Join(t.TempDir(), "reached")
	repair := s.Cmd(s.Repo, "doctor", "--fix")
	repair.Env = append(repair.Env, "TMPDIR="+tmp, task.CheckpointEnv+"=repair:index", task.CheckpointEnv+"_FILE="+reached)
	if err := repair.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return testutil.Exists(reached) })
	kill(repair)
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("the killed repair left %d entries in the temp dir", len(entries))
	}
	left, _ := filepath.Glob(filepath.Join(s.Repo, ".git", "wt", "tmp", "index-*"))
	if len(left) != 1 {
		t.Fatalf("the killed repair left %v in git-wt's state dir, want its one index folder", left)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(left[0], old, old)
	s.WT("doctor", "--fix")
	if testutil.Exists(left[0]) {
		t.Fatal("a later repair did not delete the old index folder")
	}
}

// An agent may write into a task while its creation has registered the
// worktree but not checked it out yet (its HEAD is detached at the start
// commit, or not written at all), and commit: the stress test saw such a
// commit land on the detached HEAD, on no branch, and the creation's
// checkout, resumed by the next new, then delete the file it had staged —
// the file's blob left in the object store, no ref reaching it. A commit
// there is refused, nothing staged; the file stays, untracked, through
// the end of the creation, however it ends: finished by the creator,
// resumed by new after a kill, or repaired by doctor --fix.
func TestAFileWrittenBeforeTheCreationsCheckoutIsNotLost(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(t *testing.T, s *testutil.Sandbox, creator *exec.Cmd, goOn func())
	}{
		{"the creator goes on", func(t *testing.T, s *testutil.Sandbox, creator *exec.Cmd, goOn func()) {
			goOn()
			if code := exitCode(creator); code != 0 {
				t.Fatalf("new exited %d", code)
			}
		}},
		{"killed, new resumes", func(t *testing.T, s *testutil.Sandbox, creator *exec.Cmd, _ func()) {
			kill(creator)
			s.MustWT("new", "T")
		}},
		{"killed, doctor --fix", func(t *testing.T, s *testutil.Sandbox, creator *exec.Cmd, _ func()) {
			kill(creator)
			s.WT("doctor", "--fix") // kept, the file in it: failed, and says so
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			creator, goOn := pauseAt(t, s, "new:worktree", "new", "T")
			path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
			if r := s.WT("exec", "T", "--", "sh", "-c", "echo work > work.txt"); r.Code != 0 {
				t.Fatalf("exec into the task being created: %s", r)
			}
			if r := s.WT("commit", "T", "-m", "work"); r.Code != 3 {
				t.Errorf("commit in a task whose checkout is not done: %s, want a refusal (exit 3)", r)
			}
			c.end(t, s, creator, goOn)
			data, err := os.ReadFile(filepath.Join(path, "work.txt"))
			if err != nil || string(data) != "work\n" {
				t.Fatalf("the file written before the checkout is gone (%v); commits that hold it: %q", err, s.Git(s.Repo, "log", "--all", "--format=%h", "--", "work.txt"))
			}
			if head := s.Git(path, "symbolic-ref", "-q", "HEAD"); head != "refs/heads/wt/T" {
				t.Fatalf("the worktree's HEAD is %q, want the task's branch", head)
			}
		})
	}
}

// killedAddWrote are the files git worktree add writes after it made the
// worktree's folder, in its order, before HEAD: the admin entry's gitdir,
// the folder's .git file (opened truncated, then written: "empty .git" is
// a kill between the two), the admin entry's commondir.
var killedAddWrote = []string{"gitdir", "empty .git", ".git", "commondir"}

// addKilledAfter leaves task T as a new killed inside git worktree add
// once git had made the worktree's folder and written the first n of
// killedAddWrote, and not HEAD: the record (state creating, its creator
// gone), git's admin entry locked "initializing", and the folder, into
// which another process then wrote a file. A kill does not land between
// two of git's writes on demand, so the test writes what git had
// written. It returns the folder.
func addKilledAfter(t *testing.T, s *testutil.Sandbox, n int) string {
	t.Helper()
	kill(stopAt(t, s, "new:record", "new", "T"))
	path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
	admin := filepath.Join(s.Repo, ".git", "worktrees", "T")
	s.Write(filepath.Join(admin, "locked"), "initializing")
	files := map[string][2]string{
		"gitdir":     {filepath.Join(admin, "gitdir"), filepath.Join(path, ".git") + "\n"},
		"empty .git": {filepath.Join(path, ".git"), ""},
		".git":       {filepath.Join(path, ".git"), "gitdir: " + admin + "\n"},
		"commondir":  {filepath.Join(admin, "commondir"), "../..\n"},
	}
	for _, name := range killedAddWrote[:n] {
		s.Write(files[name][0], files[name][1])
	}
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	return path
}

// A creation killed inside git worktree add before git wrote the
// worktree's HEAD (and maybe its .git file), in a folder another process
// wrote into, is finished as git would have finished it (the files git
// had not written, HEAD on the task's branch), so the task is a worktree
// on its branch again: kept failed with the file by doctor --fix, or
// checked out around it by new. The stress test saw such a task kept
// with no worktree, or a detached HEAD.
func TestCreationKilledBeforeGitWroteItsHeadIsFinished(t *testing.T) {
	for n := range len(killedAddWrote) + 1 {
		for _, end := range [][]string{{"doctor", "--fix"}, {"new", "T"}} {
			t.Run(fmt.Sprintf("after %v, %s", killedAddWrote[:n], strings.Join(end, " ")), func(t *testing.T) {
				s := testutil.NewSandbox(t)
				path := addKilledAfter(t, s, n)
				r := s.WT(end...)
				if data, err := os.ReadFile(filepath.Join(path, "work.txt")); err != nil || string(data) != "work\n" {
					t.Fatalf("%s: the other process's file is gone (%v): %s", end, err, r)
				}
				if head, _ := system("git", "-C", path, "symbolic-ref", "-q", "HEAD"); head != "refs/heads/wt/T\n" || !testutil.Exists(filepath.Join(path, "README.md")) {
					t.Fatalf("%s: HEAD %q, or not checked out: %s", end, head, r)
				}
				if wts := s.Git(s.Repo, "worktree", "list", "--porcelain"); !strings.Contains(wts, "worktree "+path+"\n") || strings.Contains(wts, "locked") {
					t.Fatalf("%s: git's worktrees:\n%s", end, wts)
				}
				if r := s.WT("doctor"); r.Code != 0 {
					t.Fatalf("doctor after %s: %s", end, r)
				}
			})
		}
	}
}
