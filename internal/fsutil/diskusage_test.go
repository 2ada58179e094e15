//go:build unix

// This test protects SPEC §20's size on disk: a file hard-linked twice in
// a tree takes its blocks once, as du counts it.
package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDiskUsageCountsAHardLinkedFileOnce(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	once := DiskUsage(dir)
	if err := os.Link(big, filepath.Join(dir, "again")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(big, filepath.Join(dir, "sub", "third")); err != nil {
		t.Fatal(err)
	}
	sub, _ := os.Stat(filepath.Join(dir, "sub"))
	want := once + allocated(sub)
	if got := DiskUsage(dir); got != want {
		t.Errorf("with two more links to a 1 MiB file: %d bytes, want %d (the file once, and the folder)", got, want)
	}
}
