// These tests protect the copy of ignored files into a new worktree: modes
// (read-only included), modification times and symlinks kept, nothing
// overwritten, and nothing written outside the worktree.
package fsutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestCopyKeepsModesTimesAndLinksAndOverwritesNothing(t *testing.T) {
	platform.RequireUnixModes(t)
	platform.RequireSymlinks(t)
	src, dst := filepath.Join(t.TempDir(), "src"), filepath.Join(t.TempDir(), "dst")
	os.MkdirAll(filepath.Join(src, "sub", "ro-dir"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "ro-dir", "f"), []byte("in a read-only folder"), 0o644)
	os.WriteFile(filepath.Join(src, "exec"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(src, "ro"), []byte("read-only"), 0o444)
	os.WriteFile(filepath.Join(src, "kept"), []byte("source"), 0o644)
	os.Symlink("exec", filepath.Join(src, "link"))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(filepath.Join(src, "ro"), old, old)
	os.Chmod(filepath.Join(src, "sub", "ro-dir"), 0o555)
	t.Cleanup(func() { RemoveAll(src); RemoveAll(dst) })
	os.MkdirAll(dst, 0o755)
	os.WriteFile(filepath.Join(dst, "kept"), []byte("already here"), 0o644)

	c := &Copier{}
	root, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c.Copy(src, root, ".")
	if errs := c.Errors(); len(errs) != 0 {
		t.Fatalf("Copy: %v", errs)
	}
	for p, mode := range map[string]os.FileMode{"exec": 0o755, "ro": 0o444, "sub/ro-dir": 0o555 | os.ModeDir} {
		if st, err := os.Lstat(filepath.Join(dst, p)); err != nil || st.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", p, st.Mode(), err, mode)
		}
	}
	if st, _ := os.Stat(filepath.Join(dst, "ro")); !st.ModTime().Equal(old) {
		t.Errorf("modification time not kept: %v", st.ModTime())
	}
	if target, err := os.Readlink(filepath.Join(dst, "link")); err != nil || target != "exec" {
		t.Errorf("link: %q %v", target, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "kept")); string(got) != "already here" {
		t.Errorf("an existing file was overwritten: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "sub", "ro-dir", "f")); string(got) != "in a read-only folder" {
		t.Errorf("a read-only folder was not filled: %q", got)
	}
	if st := c.Stats(); st.Files != 4 || st.Kept != 1 {
		t.Errorf("stats %+v, want 4 files written and 1 kept", st)
	}
}

// A folder of the worktree that is a link (the task's branch commits it)
// is kept as it is and never filled: nothing lands where it points, not
// even through a link made on the way.
func TestCopyWritesNothingThroughALinkInTheDestination(t *testing.T) {
	platform.RequireSymlinks(t)
	src, dst, outside := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(src, "conf"), 0o755)
	os.WriteFile(filepath.Join(src, "conf", "local.env"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(src, "top.env"), []byte("A=1"), 0o644)
	os.Symlink(outside, filepath.Join(dst, "conf"))
	root, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := &Copier{}
	c.Copy(src, root, ".")
	c.Copy(filepath.Join(src, "conf", "local.env"), root, filepath.Join("conf", "local.env"))
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the destination: %v", entries)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "top.env")); string(got) != "A=1" {
		t.Errorf("the file beside the link was not copied: %q", got)
	}
	if st := c.Stats(); st.Kept != 1 || st.Files != 1 || len(c.Errors()) != 1 {
		t.Errorf("stats %+v, errors %v: want the link kept, one file written, the one through the link failed", st, c.Errors())
	}
}
