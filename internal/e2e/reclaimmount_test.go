//go:build linux

// These tests protect every deletion of a folder (gc --reclaim's build
// output, rm, gc --foreign; SPEC §20) from a file system mounted in it (a
// data set bound in, a FUSE mount): deleting the folder would delete what
// is mounted there, which lives elsewhere.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// bindMount binds the folder from at to, undone when the test ends
// wherever a failing removal moved it (anywhere under the folder root);
// the test is skipped where this process may not mount (not root).
func bindMount(t *testing.T, from, to, root string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("binding a folder needs root")
	}
	if out, err := exec.Command("mount", "--bind", from, to).CombinedOutput(); err != nil {
		t.Skipf("cannot bind a folder here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if exec.Command("umount", to).Run() == nil {
			return
		}
		info, _ := os.ReadFile("/proc/self/mountinfo")
		for line := range strings.Lines(string(info)) {
			if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], root+"/") {
				exec.Command("umount", f[4]).Run()
			}
		}
	})
}

func TestGCReclaimNeverDeletesIntoAMountedFileSystem(t *testing.T) {
	s := reclaimSandbox(t)
	path := s.MustWT("new", "T").Out()
	data := t.TempDir()
	s.Write(filepath.Join(data, "dataset.bin"), "lives elsewhere\n")
	mountPoint := filepath.Join(path, "node_modules", "data")
	os.MkdirAll(mountPoint, 0o755)
	bindMount(t, data, mountPoint, filepath.Dir(s.Repo))
	idle(t, s, "T", path, 4*24*time.Hour)

	doc := reclaimJSON(t, s, "--reclaim")
	if !testutil.Exists(filepath.Join(data, "dataset.bin")) {
		t.Fatal("gc --reclaim deleted a file of the file system mounted in the build output")
	}
	if got := doc.outcomes()["T"]; !strings.Contains(got, "mounted at") {
		t.Errorf("outcome %q: want it to say the folder holds a mount point", got)
	}
	if !testutil.Exists(filepath.Join(path, "node_modules", "marker")) {
		t.Error("a folder holding a mount point is kept whole")
	}
}

func TestRmNeverDeletesIntoAMountedFileSystem(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	data := t.TempDir()
	s.Write(filepath.Join(data, "dataset.bin"), "lives elsewhere\n")
	mountPoint := filepath.Join(path, "build", "data") // ignored: the worktree is clean
	os.MkdirAll(mountPoint, 0o755)
	bindMount(t, data, mountPoint, filepath.Dir(s.Repo))

	r := s.WT("rm", "--force", "--wait", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "mounted file system at "+mountPoint) {
		t.Errorf("rm --force of a task with a file system mounted in it: %s", r)
	}
	if !testutil.Exists(filepath.Join(data, "dataset.bin")) || !testutil.Exists(path) {
		t.Fatal("rm deleted into the file system mounted in the task")
	}
}

func TestGCForeignKeepsAWorktreeWithAFileSystemMountedInIt(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	path := l.paths["git"]
	data := t.TempDir()
	s.Write(filepath.Join(data, "dataset.bin"), "lives elsewhere\n")
	mountPoint := filepath.Join(path, ".claude", "data") // .claude/ is excluded: the worktree is clean
	os.MkdirAll(mountPoint, 0o755)
	bindMount(t, data, mountPoint, filepath.Dir(s.Repo))
	l.idle(path)

	r := s.WT("gc", "--foreign")
	if r.Code != 0 || !strings.Contains(r.Stdout, "holds a mount") {
		t.Errorf("gc --foreign: %s", r)
	}
	if !testutil.Exists(filepath.Join(data, "dataset.bin")) {
		t.Fatal("gc --foreign deleted into the file system mounted in a worktree")
	}
}
