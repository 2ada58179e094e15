//go:build unix

// These tests protect removal's promise (SPEC §7): a file written while rm
// or merge-time cleanup removes a worktree survives, a removal that fails
// half way is left in state removing and finished by the next rm or
// doctor --fix, and a shell inside a worktree is not left in a deleted
// folder by a plain rm.
package e2e

import (
	"encoding/json"
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

// pauseAt starts git-wt with args, waits until it reaches checkpoint, and
// returns it paused there with the function that lets it go on.
func pauseAt(t *testing.T, s *testutil.Sandbox, checkpoint string, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	return pauseWith(t, s, "", checkpoint, args...)
}

// pauseWith is pauseAt with stdin.
func pauseWith(t *testing.T, s *testutil.Sandbox, stdin, checkpoint string, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	dir := t.TempDir()
	reached, fifo := filepath.Join(dir, "reached"), filepath.Join(dir, "go-on")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := s.Cmd(s.Repo, args...)
	cmd.Env = append(cmd.Env, task.CheckpointEnv+"="+checkpoint, task.CheckpointEnv+"_FILE="+reached, task.CheckpointEnv+"_FIFO="+fifo)
	cmd.Stdin = strings.NewReader(stdin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, func() bool { return testutil.Exists(reached) })
	return cmd, func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until git-wt reads
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// recordState is the state in the task's record, "" when it has none.
func recordState(s *testutil.Sandbox, slug string) string {
	cmd := exec.Command("git", "cat-file", "blob", "refs/git-wt/tasks/"+slug)
	cmd.Dir, cmd.Env = s.Repo, s.Env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var rec struct{ State string }
	json.Unmarshal(out, &rec)
	return rec.State
}

// trashIsEmpty checks that nothing is left in the trash beside path once
// the deleters rm started in the background have ended.
func trashIsEmpty(t *testing.T, path string) {
	t.Helper()
	testutil.WaitForDeleters(t, filepath.Dir(path))
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), ".git-wt-trash")); len(entries) != 0 {
		t.Fatalf("left in the trash: %v", entries)
	}
}

func TestRmKeepsAFileWrittenAfterItsCheck(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	rm, goOn := pauseAt(t, s, "rm:checked", "rm", "T")
	s.Write(filepath.Join(path, "late.txt"), "written while rm ran")
	goOn()
	if code := exitCode(rm); code != 3 {
		t.Fatalf("rm of a worktree written to after its check exited %d, want 3", code)
	}
	if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "written while rm ran" {
		t.Fatalf("the late file is lost: %v", err)
	}
	if st := recordState(s, "T"); st != "active" || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatalf("record state %q after a refused rm; branch kept: want active and yes", st)
	}
	if !strings.Contains(s.Git(path, "status", "--porcelain"), "late.txt") {
		t.Fatal("the worktree put back is not a working git worktree")
	}
	trashIsEmpty(t, path)
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after a refused rm: %s", r)
	}
}

// A git wt commit of a file written after rm's check (the stress test's
// calm round: an agent commits while another removes) does not move the
// branch under the removal: rm holds the task's commit lock from before
// its check, so the commit waits (here: gives up after wt.lockTimeout,
// committing nothing), and rm's second look keeps the task with the
// file. Before, the commit landed, rm removed the worktree, failed to
// delete the branch that moved and left the task half removed (exit 1).
func TestCommitDuringRmNeitherMovesTheBranchNorLeavesItHalfRemoved(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	rm, goOn := pauseAt(t, s, "rm:checked", "rm", "T")
	s.Write(filepath.Join(path, "late.txt"), "written and committed while rm ran")
	s.Git(s.Repo, "config", "wt.lockTimeout", "1s")
	commit := s.WT("commit", "T", "-m", "late")
	goOn()
	code := exitCode(rm)
	if code == 1 || recordState(s, "T") == "removing" {
		t.Fatalf("rm exited %d and left task T in state %q: the commit (%s) moved its branch under it", code, recordState(s, "T"), commit)
	}
	if commit.Code == 0 {
		t.Fatalf("the commit ran while rm held the task: %s", commit)
	}
	if code != 3 || !testutil.Exists(filepath.Join(path, "late.txt")) {
		t.Fatalf("rm exited %d (want 3, kept) and late.txt is there: %v", code, testutil.Exists(filepath.Join(path, "late.txt")))
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the race: %s", r)
	}
	s.MustWT("commit", "T", "-m", "late")
	if s.Git(s.Repo, "show", "wt/T:late.txt") != "written and committed while rm ran" {
		t.Fatal("the commit after the refused rm did not land")
	}
}

func TestMergeCleanupKeepsAFileWrittenAfterItsCheck(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "work.txt", "work", "work")
	merge, goOn := pauseAt(t, s, "rm:checked", "merge", "T")
	s.Write(filepath.Join(path, "late.txt"), "written while merge cleaned up")
	goOn()
	if code := exitCode(merge); code != 0 {
		t.Fatalf("merge whose cleanup was refused exited %d, want 0", code)
	}
	if s.Git(s.Repo, "show", "main:work.txt") != "work" {
		t.Fatal("the merge did not land")
	}
	if !testutil.Exists(filepath.Join(path, "late.txt")) || recordState(s, "T") != "active" {
		t.Fatalf("the task or its late file is gone (record state %q)", recordState(s, "T"))
	}
	trashIsEmpty(t, path)
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after a refused cleanup: %s", r)
	}
}

func TestRmThatFailsHalfWayIsFinishedByTheNextRm(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("the tests hand the repository to an unprivileged user: needs root")
	}
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "STATE.json"), "{}") // ignored: removed with it
	s.GiveToNobody()
	refs := filepath.Join(s.Repo, ".git", "refs")
	// All of .git/refs read-only: rm cannot even mark the task, and
	// changes nothing.
	system("chmod", "-R", "a-w", refs)
	r := s.AsNobody("rm", "T")
	system("chmod", "-R", "u+w", refs)
	if r.Code != 1 || !strings.Contains(r.Stderr, "nothing was changed") || !testutil.Exists(filepath.Join(path, "STATE.json")) || recordState(s, "T") != "active" {
		t.Fatalf("rm with a read-only .git/refs: %s (record %q)", r, recordState(s, "T"))
	}
	// Only the branches read-only: the worktree goes, the branch cannot;
	// the task stays "removing", and the message says how to finish.
	branches := filepath.Join(refs, "heads", "wt")
	os.Chmod(branches, 0o555)
	r = s.AsNobody("rm", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, "state removing") || !strings.Contains(r.Stderr, "git wt rm T") {
		t.Fatalf("rm with read-only branches: %s", r)
	}
	if st := recordState(s, "T"); st != "removing" {
		t.Fatalf("record state %q after a half-done rm, want removing", st)
	}
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckRemoval)) {
		t.Fatalf("doctor while the removal is stuck: %s", r)
	}
	os.Chmod(branches, 0o755)
	if r := s.AsNobody("rm", "T"); r.Code != 0 {
		t.Fatalf("rm again: %s", r)
	}
	gone(t, s, "T", path)
	assertNothingLeft(t, s)
	trashIsEmpty(t, path)
}

// undeletableTask makes task T whose ignored build output holds a folder
// the unprivileged user cannot delete (root's), the sandbox handed to
// that user; it returns the task's path.
func undeletableTask(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	if !testutil.IsRoot() {
		t.Skip("an undeletable file needs a folder of another user: needs root")
	}
	path := s.MustWT("new", "T").Out()
	s.GiveToNobody()
	s.Write(filepath.Join(path, "build", "root-owned", "file.o"), "x") // build/ is ignored: the worktree is clean
	return path
}

// An rm that deletes the files itself (the first process of a PID
// namespace) and cannot leaves the task half removed, says so, and
// doctor --fix finishes it once the cause is fixed.
func TestRmOfAnUndeletableFileIsFinishedByDoctor(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := undeletableTask(t, s)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "setpriv", fmt.Sprintf("--reuid=%d", testutil.Nobody), fmt.Sprintf("--regid=%d", testutil.Nobody), "--clear-groups", "--",
		filepath.Join(testutil.BinDir(t), "git-wt"), "rm", "--ignore-in-use", "T")
	cmd.Dir, cmd.Env = s.Repo, s.Env
	out, err := cmd.CombinedOutput()
	if exitStatus(t, err) != 1 || !strings.Contains(string(out), "state removing") || !strings.Contains(string(out), "doctor --fix") {
		t.Fatalf("rm of a worktree holding an undeletable file: %v\n%s", err, out)
	}
	if st := recordState(s, "T"); st != "removing" {
		t.Fatalf("record state %q, want removing", st)
	}
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckRemoval)) || strings.Contains(r.Stdout, string(task.LeftoverTrash)) {
		t.Fatalf("doctor while the removal is stuck: %s", r)
	}
	s.GiveToNobody() // the cause fixed
	// Its process was pid 1 of a namespace this one cannot see into: it
	// counts as stopped once wt.orphanGrace has passed.
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s")
	if r := s.AsNobody("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	gone(t, s, "T", path)
	assertNothingLeft(t, s)
	trashIsEmpty(t, path)
}

// An rm that hands the files to a deleter in the background is done once
// the task is gone; what the deleter cannot delete (checked files, no
// work) rm says (exit 1, SPEC §19), doctor reports as leftover trash, and
// gc deletes once the cause is fixed.
func TestRmOfAnUndeletableFileLeavesItToGc(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := undeletableTask(t, s)
	if r := s.AsNobody("rm", "T"); r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
		t.Fatalf("rm that cannot delete the files must say so: %s", r)
	}
	gone(t, s, "T", path)
	testutil.WaitForDeleters(t, filepath.Dir(path))
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.LeftoverTrash)) {
		t.Fatalf("doctor after a deleter that could not delete everything: %s", r)
	}
	s.GiveToNobody() // the cause fixed
	gcLeftNothing(t, s, path, s.AsNobody("gc"))
}

func TestRmFromAShellInsideTheWorktreeIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	r := shellIn(t, s, `cd "$1" && git wt rm .; code=$?; exit $code`, path)
	if r.Code != 3 || !strings.Contains(r.Stderr, `cd "$(git wt path --main)"`) {
		t.Fatalf("rm . from a shell inside the worktree: %s", r)
	}
	if !testutil.Exists(filepath.Join(path, "README.md")) || recordState(s, "T") != "active" {
		t.Fatal("a refused rm changed something")
	}
	// With --force it goes, and the way back still works from the
	// deleted folder.
	r = shellIn(t, s, `cd "$1" && git wt rm --force . && git wt path --main`, path)
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != s.Repo {
		t.Fatalf("rm --force . then path --main: %s", r)
	}
	gone(t, s, "T", path)
}

func TestConcurrentRmOfOneTaskAllSucceed(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	var cmds []*exec.Cmd
	for i := 0; i < 6; i++ {
		c := s.Cmd(s.Repo, "rm", "T")
		c.Stderr = &strings.Builder{}
		cmds = append(cmds, c)
	}
	startTogether(t, cmds)
	for i, c := range cmds {
		if code := exitCode(c); code != 0 {
			t.Errorf("rm %d of the same task exited %d: %s", i, code, c.Stderr)
		}
	}
	gone(t, s, "T", path)
	assertNothingLeft(t, s)
	trashIsEmpty(t, path)
}

func TestRmThatTimesOutOnTheLockChangesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	holder := holdFlock(t, filepath.Join(s.Repo, ".git", "wt", "lock"))
	s.Git(s.Repo, "config", "wt.lockTimeout", "300ms")
	r := s.WT("rm", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, "nothing was changed") {
		t.Fatalf("rm while the lock is held: %s", r)
	}
	if !testutil.Exists(filepath.Join(path, "README.md")) || recordState(s, "T") != "active" {
		t.Fatalf("a rm that gave up on the lock changed something (record %q)", recordState(s, "T"))
	}
	trashIsEmpty(t, path)
	holder.Process.Kill()
	holder.Wait()
	s.MustWT("rm", "T")
	gone(t, s, "T", path)
}

// lateFileInAKilledRm makes task T, stops an rm of it once its folder is
// moved aside, writes late.txt there (seen by no check yet), and kills
// the rm; it returns the task's path.
func lateFileInAKilledRm(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	path := s.MustWT("new", "T").Out()
	killRmWithALateFile(t, s, path)
	return path
}

// killRmWithALateFile stops an rm of task T (at path) once its folder is
// moved aside, writes late.txt there, and kills the rm.
func killRmWithALateFile(t *testing.T, s *testutil.Sandbox, path string) {
	t.Helper()
	rm := stopAt(t, s, "rm:renamed", "rm", "T")
	moved, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".git-wt-trash", "T.*"))
	if len(moved) != 1 {
		t.Fatalf("the folder was not moved aside: %v", moved)
	}
	s.Write(filepath.Join(moved[0], "late.txt"), "late")
	kill(rm)
}

func TestRmKilledBeforeItsSecondCheckLosesNoLateFile(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := lateFileInAKilledRm(t, s)
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.StuckRemoval)) || strings.Contains(r.Stdout, string(task.LeftoverTrash)) {
		t.Fatalf("doctor after a kill between the move and the second check: %s", r)
	}
	s.WT("doctor", "--fix") // keeps the dirty worktree, and says so
	if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late" {
		t.Fatalf("the late file is not back in the worktree: %v", err)
	}
	if st := recordState(s, "T"); st != "active" {
		t.Fatalf("record state %q, want active", st)
	}
	trashIsEmpty(t, path)
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the fix: %s", r)
	}
}

// A doctor --fix or gc that read the records before an rm began lists the
// trash after that rm moved the folder aside and was killed: the folder
// there has no record in state removing in what it read, yet it is a
// stuck removal's, holding a file written during the rm that no check has
// seen. It must be left to the stuck removal's repair, which puts it back.
func TestRepairThatReadTheRecordsBeforeAKilledRmLosesNoLateFile(t *testing.T) {
	for _, repair := range [][]string{{"doctor", "--fix"}, {"gc"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			doctor, release := stopAtUntil(t, s, "doctor:records", repair...)
			killRmWithALateFile(t, s, path)
			os.WriteFile(release, nil, 0o644)
			exitCode(doctor)
			s.WT("doctor", "--fix") // the stuck removal: put back, kept dirty
			if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late" {
				t.Fatalf("the late file is not back in the worktree: %v", err)
			}
			if st := recordState(s, "T"); st != "active" {
				t.Fatalf("record state %q, want active", st)
			}
			trashIsEmpty(t, path)
		})
	}
}

// An rm killed between its move and its second check leaves its folder in
// the trash; if git's admin entry then goes another way (the user's git
// worktree prune, which sees the folder gone), the repair cannot tell by
// that entry that the folder was never checked again. It looks at the
// folder itself: a file the branch does not hold puts the folder back,
// kept and reported, never deleted.
func TestRmKilledBeforeItsSecondCheckThenPrunedLosesNoLateFile(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := lateFileInAKilledRm(t, s)
	s.Git(s.Repo, "worktree", "prune")
	s.WT("doctor", "--fix")
	if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late" {
		t.Fatalf("the late file is not back in the worktree: %v", err)
	}
	trashIsEmpty(t, path)
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, path) {
		t.Fatalf("doctor must report the folder it kept: %s", r)
	}
}

// A process working in the worktree (its working directory there) moves
// with the folder that rm moves aside, and writes into it by relative
// paths. One that writes a file and exits between rm's second status and
// its second look for users is seen by neither, unless the users are
// looked for first: no process can enter the moved folder after the move,
// so the status that follows sees all it wrote.
func TestRmSeesWhatAProcessInTheMovedFolderWroteBeforeItExited(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	dir := t.TempDir()
	reached, fifo, hold := filepath.Join(dir, "reached"), filepath.Join(dir, "go-on"), filepath.Join(dir, "hold")
	for _, f := range []string{fifo, hold} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	goOn := func(f string) {
		w, err := os.OpenFile(f, os.O_WRONLY, 0) // blocks until the reader opens it
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	at := func(name string) bool { data, _ := os.ReadFile(reached); return string(data) == name }
	rm := s.Cmd(s.Repo, "rm", "T")
	rm.Env = append(rm.Env, task.CheckpointEnv+"=rm:checked,rm:rechecked", task.CheckpointEnv+"_FILE="+reached, task.CheckpointEnv+"_FIFO="+fifo)
	if err := rm.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan int, 1)
	go func() { exited <- exitCode(rm) }()
	t.Cleanup(func() { rm.Process.Kill() })
	waitFor(t, func() bool { return at("rm:checked") }) // the first look, in place, is done
	agent := exec.Command("sh", "-c", "read x < '"+hold+"'; echo late > late.txt")
	agent.Dir = path
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	goOn(fifo) // rm moves the folder aside (the agent with it) and looks again
	code := -1
	waitFor(t, func() bool {
		select {
		case code = <-exited: // refused at once: the agent is in the folder
			return true
		default:
			return at("rm:rechecked") // its status done, the users not looked for yet
		}
	})
	goOn(hold)
	agent.Wait()
	if code == -1 {
		goOn(fifo)
		code = <-exited
	}
	if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late\n" {
		t.Fatalf("rm exited %d and the agent's file is not in the worktree: %v", code, err)
	}
	if code != 3 || recordState(s, "T") != "active" {
		t.Fatalf("rm exited %d, record %q: want a refusal, the task active", code, recordState(s, "T"))
	}
}

// git wt exec's own process, once in the worktree and until it becomes
// the command, uses the worktree as much as the command will: rm must
// refuse it, or the command starts in a folder being deleted and what it
// writes there is lost.
func TestRmRefusesAWorktreeThatGitWtExecHasEntered(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	stopAt(t, s, "exec:entered", "exec", "T", "--", "true")
	if r := s.WT("rm", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "in use") || !testutil.Exists(path) {
		t.Fatalf("rm of a worktree git wt exec has entered: %s", r)
	}
}

// An rm --force of a task whose creation was killed before its checkout
// (its HEAD detached, its files not written), itself killed once it had
// moved the folder aside, left a record that its repair put back as
// active: a task on no branch, with no files, that doctor found well.
// The record now says, from the start of such a removal, that the
// creation never finished. A folder that holds nothing its branch does
// not is removed as the creation's rollback would have; one that holds a
// file written meanwhile is put back, the task failed and kept, and made
// a worktree on its branch, checked out around the file.
func TestKilledRmOfAnUnfinishedCreationIsNotPutBackActive(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("a late file %v", late), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			kill(stopAt(t, s, "new:worktree", "new", "T"))
			path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
			rm := stopAt(t, s, "rm:renamed", "rm", "--force", "T")
			if late {
				moved, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".git-wt-trash", "T.*"))
				if len(moved) != 1 {
					t.Fatalf("the folder was not moved aside: %v", moved)
				}
				s.Write(filepath.Join(moved[0], "late.txt"), "late")
			}
			kill(rm)
			s.WT("doctor", "--fix")
			if !late {
				gone(t, s, "T", path)
				assertNothingLeft(t, s)
				return
			}
			if st := recordState(s, "T"); st != "failed" {
				t.Fatalf("record state %q after the repair, want failed", st)
			}
			if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "late" {
				t.Fatalf("the late file is not back in the worktree: %v", err)
			}
			if head, _ := system("git", "-C", path, "symbolic-ref", "-q", "HEAD"); head != "refs/heads/wt/T\n" || !testutil.Exists(filepath.Join(path, "README.md")) {
				t.Fatalf("the kept worktree: HEAD %q, or not checked out", head)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the repair: %s", r)
			}
		})
	}
}

// staleStatData makes the stat data of a tracked file of the worktree at
// path disagree with its index (its content unchanged), with the index
// written well before: the next status that may write the index
// refreshes that entry and writes it. It returns the index file.
func staleStatData(t *testing.T, s *testutil.Sandbox, path, file string) string {
	t.Helper()
	index := strings.TrimSpace(s.Git(path, "rev-parse", "--path-format=absolute", "--git-path", "index"))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(index, old, old); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(path, file), later, later); err != nil {
		t.Fatal(err)
	}
	return index
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}

// rm's first look at a worktree nobody works in writes back the stat data
// its status refreshed, as git worktree remove's own status does: a new
// worktree's index, written in the second of its checkout, otherwise made
// that status and the second look each read every file again.
func TestRmRefreshesTheIndexOfAWorktreeNobodyUses(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	index := staleStatData(t, s, path, "README.md")
	before := modTime(t, index)
	rm, goOn := pauseAt(t, s, "rm:checked", "rm", "T")
	if after := modTime(t, index); !after.After(before) {
		t.Fatalf("rm's look left the index as it was (%v), want it refreshed", after)
	}
	goOn()
	if code := exitCode(rm); code != 0 {
		t.Fatalf("rm of a clean worktree exited %d", code)
	}
}

// A worktree a process works in is looked at read-only: taking its index
// lock could fail that process's own git add.
func TestRmNeverTakesTheIndexLockOfAWorktreeInUse(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	index := staleStatData(t, s, path, "README.md")
	before := modTime(t, index)
	startIn(t, path, "sleep", "60")
	for _, args := range [][]string{{"rm", "T"}, {"rm", "--ignore-in-use", "--dry-run", "T"}} {
		s.WT(args...)
		if after := modTime(t, index); !after.Equal(before) {
			t.Fatalf("git wt %v wrote the index of a worktree in use", args)
		}
	}
	if !testutil.Exists(path) {
		t.Fatal("the worktree in use was removed")
	}
}

// A command on a task whose folder rm has moved aside to look at it once
// more is told that the task is being removed (exit 3: rm puts the folder
// back if it finds work), not that its worktree is missing and to make it
// again with git wt new (exit 1), as the stress test's commits, execs and
// inits were.
func TestACommandOnATaskBeingRemovedIsToldSo(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	rm := stopAt(t, s, "rm:renamed", "rm", "T")
	for _, args := range [][]string{{"commit", "T", "-m", "x"}, {"exec", "T", "--", "true"}, {"init", "T"}} {
		if r := s.WT(args...); r.Code != 3 || !strings.Contains(r.Stderr, `task "T" is being removed by process`) {
			t.Errorf("git wt %s while rm had moved the folder aside: %s", strings.Join(args, " "), r)
		}
	}
	// Once that rm is dead, waiting does not help: the message says how
	// to finish the removal.
	kill(rm)
	if r := s.WT("commit", "T", "-m", "x"); r.Code != 1 || !strings.Contains(r.Stderr, "stopped half way: run git wt rm T") {
		t.Errorf("git wt commit after the rm that moved the folder aside died: %s", r)
	}
}

// A command on a task being made again (removed and made anew since the
// command read it, its worktree not added yet) is told so (exit 3), and,
// once that new has died, how to finish making it (exit 1).
func TestACommandOnATaskBeingMadeIsToldSo(t *testing.T) {
	s := testutil.NewSandbox(t)
	maker := stopAt(t, s, "new:record", "new", "T")
	for _, args := range [][]string{{"commit", "T", "-m", "x"}, {"exec", "T", "--", "true"}} {
		if r := s.WT(args...); r.Code != 3 || !strings.Contains(r.Stderr, `task "T" is being made by process`) {
			t.Errorf("git wt %s while new had written the record only: %s", strings.Join(args, " "), r)
		}
	}
	kill(maker)
	if r := s.WT("commit", "T", "-m", "x"); r.Code != 1 || !strings.Contains(r.Stderr, "run git wt new T to finish making it") {
		t.Errorf("git wt commit after the new that wrote the record died: %s", r)
	}
}
