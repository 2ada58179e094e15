//go:build linux

// These tests protect gc --reclaim (SPEC §20) from a file system mounted
// in a task's build output (a data set bound in, a FUSE mount): deleting
// the folder would delete what is mounted there, which lives elsewhere.
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

// bindMount binds the folder from at to, undone when the test ends; the
// test is skipped where this process may not mount (not root).
func bindMount(t *testing.T, from, to string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("binding a folder needs root")
	}
	if out, err := exec.Command("mount", "--bind", from, to).CombinedOutput(); err != nil {
		t.Skipf("cannot bind a folder here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", to).Run() })
}

func TestGCReclaimNeverDeletesIntoAMountedFileSystem(t *testing.T) {
	s := reclaimSandbox(t)
	path := s.MustWT("new", "T").Out()
	data := t.TempDir()
	s.Write(filepath.Join(data, "dataset.bin"), "lives elsewhere\n")
	mountPoint := filepath.Join(path, "node_modules", "data")
	os.MkdirAll(mountPoint, 0o755)
	bindMount(t, data, mountPoint)
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
