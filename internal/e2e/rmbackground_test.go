//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// deleterHeld runs git wt rm T with every deleter it starts held at its
// checkpoint (before it deletes anything), and returns the folder rm
// handed over.
func deleterHeld(t *testing.T, s *testutil.Sandbox, path string) string {
	t.Helper()
	reached := filepath.Join(t.TempDir(), "reached")
	held := withVars(s, task.CheckpointEnv+"=trash:deleting", task.CheckpointEnv+"_FILE="+reached)
	if r := held.WT("rm", "-q", "T"); r.Code != 0 {
		t.Fatalf("rm: %s", r)
	}
	waitFor(t, func() bool { return testutil.Exists(reached) })
	moved, _ := filepath.Glob(filepath.Join(filepath.Dir(path), place.TrashDir, "T.*[0-9]"))
	if len(moved) != 1 {
		t.Fatalf("want one folder handed to a deleter in the trash, found %v", moved)
	}
	t.Cleanup(func() { syscall.Kill(deleterOf(moved[0]), syscall.SIGKILL) }) // should the test stop early
	return moved[0]
}

// deleterOf is the pid of the deleter a folder in the trash is named after.
func deleterOf(folder string) int {
	pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Ext(folder), "."))
	return pid
}

// killDeleter kills the deleter named in the folder it holds.
func killDeleter(t *testing.T, folder string) {
	t.Helper()
	if syscall.Kill(deleterOf(folder), syscall.SIGKILL) != nil {
		t.Fatalf("cannot kill the deleter of %s", folder)
	}
	testutil.WaitForDeleters(t, filepath.Dir(folder))
}

// rm returns once the task is gone from its path, from git and from the
// records; its files are deleted by a detached git-wt, which doctor and
// gc leave alone while it runs (its stamp proves it alive).
func TestRmLeavesTheFilesToADeleterThatDoctorLeavesAlone(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Write(filepath.Join(path, "build", "out.o"), "ignored build output\n")
	folder := deleterHeld(t, s, path)
	if testutil.Exists(path) || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatal("rm returned with the task's folder, branch or record still there")
	}
	if strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), "worktree "+path+"\n") {
		t.Fatal("git still lists the removed worktree")
	}
	if !testutil.Exists(filepath.Join(folder, "build", "out.o")) || !testutil.Exists(place.StampOf(folder)) {
		t.Fatalf("the deleter's folder %s or its stamp is missing", folder)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor while the deleter runs must see nothing wrong: %s", r)
	}
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s")
	if r := s.WT("gc"); r.Code != 0 || !testutil.Exists(folder) {
		t.Fatalf("gc must leave a live deleter's folder to it: %s", r)
	}
	// Killed, it leaves the folder and its stamp behind.
	killDeleter(t, folder)
	s.Git(s.Repo, "config", "--unset", "wt.orphanGrace")
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.LeftoverTrash)) {
		t.Fatalf("doctor after the deleter was killed must report its folder: %s", r)
	}
	// Its stamp proves it dead: gc deletes what it left at once, whatever
	// wt.orphanGrace says.
	gcLeftNothing(t, s, path, s.WT("gc"))
}

// gcLeftNothing checks that a gc (that ended as r) emptied the trash
// beside path and left doctor nothing to say.
func gcLeftNothing(t *testing.T, s *testutil.Sandbox, path string, r testutil.Result) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("gc: %s", r)
	}
	trashIsEmpty(t, path)
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after gc: %s", r)
	}
}

// A deleter that is let go deletes the folder and its stamp, and the
// trash folder when that is empty.
func TestRmsDeleterDeletesEverythingItWasHanded(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.MustWT("rm", "-q", "T")
	testutil.WaitForDeleters(t, filepath.Dir(path))
	if testutil.Exists(filepath.Join(filepath.Dir(path), place.TrashDir)) {
		entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), place.TrashDir))
		t.Fatalf("the trash still holds %v", entries)
	}
}

// The first process of a PID namespace deletes the files itself: its end
// kills every process in the namespace, a deleter with them.
func TestRmAsTheFirstProcessOfANamespaceDeletesTheFilesItself(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("a PID namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	held := withVars(s, task.CheckpointEnv+"=trash:deleting")
	if r := blindWT(t, held, "pidns", s.Repo, "rm", "-q", "--ignore-in-use", "T"); r.Code != 0 {
		t.Fatalf("rm as pid 1: %s", r)
	}
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), place.TrashDir)); len(entries) != 0 {
		t.Fatalf("rm as pid 1 left %v in the trash", entries)
	}
}

// The deleter is for git-wt's own use: it refuses a path that is not in
// a trash folder, and deletes nothing.
func TestTheDeleterRefusesAPathOutsideTheTrash(t *testing.T) {
	s := testutil.NewSandbox(t)
	victim := filepath.Join(s.Home, "precious")
	s.Write(filepath.Join(victim+"."+"1", "f"), "keep\n")
	r := s.WT("__delete-trash", victim)
	if r.Code != 2 || !strings.Contains(r.Stderr, "for git-wt's own use") || !testutil.Exists(filepath.Join(victim+".1", "f")) {
		t.Fatalf("__delete-trash outside a trash folder: %s", r)
	}
}

// The trash folder goes when the last folder in it is deleted, by a
// deleter or another removal, and may go between an rm making it and
// moving its task's folder in: the rm makes it again. (30 rm at once hit
// this.)
func TestRmMovesAsideIntoATrashFolderRemovedMeanwhile(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	rm, goOn := pauseAt(t, s, "rm:trash-made", "rm", "-q", "T")
	trash := filepath.Join(filepath.Dir(path), place.TrashDir)
	if err := os.Remove(trash); err != nil {
		t.Fatalf("the trash folder rm made: %v", err)
	}
	goOn()
	if code := exitCode(rm); code != 0 {
		t.Fatalf("rm exited %d after its trash folder was removed meanwhile", code)
	}
	gone(t, s, "T", path)
	trashIsEmpty(t, path)
}
