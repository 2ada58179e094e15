//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// immutable makes the file at path one nobody can delete, root included
// (chattr +i), and takes that back when the test ends, wherever the file
// went meanwhile (under dir); it skips the test where the file system or
// the user cannot.
func immutable(t *testing.T, path, dir string) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i (root on a file system with the immutable attribute, such as ext4) is not available here: %v %s", err, out)
	}
	name := filepath.Base(path)
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == name {
				exec.Command("chattr", "-i", p).Run()
			}
			return nil
		})
	})
}

// An rm whose files cannot be deleted says so, naming where they are and
// why, and exits 1 (kind io): the task is gone, its files are not. doctor
// calls them leftover trash with the reason, never an interrupted rm, and
// a gc that cannot delete them either exits 1.
func TestRmThatCannotDeleteTheFilesFailsNamingThem(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	stuck := filepath.Join(path, "build", "stuck.o")
	s.Write(stuck, "cannot be deleted\n")
	base := filepath.Dir(path)
	immutable(t, stuck, base)
	trash := filepath.Join(base, place.TrashDir)

	r := s.WT("rm", "--json", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, trash) || !strings.Contains(r.Stderr, "operation not permitted") {
		t.Fatalf("rm of a task whose files cannot be deleted must exit 1 naming the folder and the reason: %s", r)
	}
	if !strings.Contains(r.Stdout, `"kind": "io"`) {
		t.Errorf("rm --json must give the error kind io: %s", r.Stdout)
	}
	if testutil.Exists(path) || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatal("the task itself must be gone")
	}
	testutil.WaitForDeleters(t, base)

	d := s.WT("doctor")
	if d.Code != 1 || !strings.Contains(d.Stdout, string(task.LeftoverTrash)) || !strings.Contains(d.Stdout, "operation not permitted") {
		t.Fatalf("doctor must report the leftover trash with the reason: %s", d)
	}
	if strings.Contains(d.Stdout, "interrupted") {
		t.Errorf("a deletion that failed is not an interrupted rm: %s", d)
	}
	if g := s.WT("gc"); g.Code != 1 {
		t.Fatalf("gc that could not delete the leftover trash must exit 1: %s", g)
	}

	exec.Command("chattr", "-R", "-i", trash).Run()
	gcLeftNothing(t, s, path, s.WT("gc"))
}

// rm --wait returns once the files are deleted, not before: a script that
// needs the space, or unmounts next, runs after it.
func TestRmWaitReturnsOnceTheFilesAreDeleted(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	s.Git(s.Repo, "config", "wt.rmWait", "0s")
	s.MustWT("rm", "-q", "--wait", "T")
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), place.TrashDir)); len(entries) != 0 {
		t.Fatalf("rm --wait returned with %v still in the trash", entries)
	}
}

// A deleter that fails after rm has returned (wt.rmWait 0: rm does not
// wait) is reported once, by the next command in the repository; doctor
// goes on reporting the folder with the reason.
func TestADeletionThatFailsLaterIsReportedOnceByTheNextCommand(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	stuck := filepath.Join(path, "build", "stuck.o")
	s.Write(stuck, "cannot be deleted\n")
	base := filepath.Dir(path)
	immutable(t, stuck, base)
	s.Git(s.Repo, "config", "wt.rmWait", "0s")
	s.MustWT("rm", "-q", "T")
	testutil.WaitForDeleters(t, base)

	trash := filepath.Join(base, place.TrashDir)
	if r := s.WT("list"); r.Code != 0 || !strings.Contains(r.Stderr, trash) || !strings.Contains(r.Stderr, "operation not permitted") {
		t.Fatalf("the next command must say what the deleter could not delete: %s", r)
	}
	if r := s.WT("list"); strings.Contains(r.Stderr, trash) {
		t.Fatalf("the command after it must not say it again: %s", r)
	}
	if d := s.WT("doctor"); d.Code != 1 || !strings.Contains(d.Stdout, "operation not permitted") {
		t.Fatalf("doctor must still report the leftover trash with the reason: %s", d)
	}
	exec.Command("chattr", "-R", "-i", trash).Run()
	gcLeftNothing(t, s, path, s.WT("gc"))
}
