//go:build unix

// These tests protect DiskUsage's count (SPEC §20): what du counts, a
// file with several hard links once, and nothing a symlink points at.
package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func blocks(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Blocks * 512
}

func TestDiskUsageCountsAHardLinkedFileOnce(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	big := filepath.Join(a, "big")
	os.WriteFile(big, []byte(strings.Repeat("x", 64<<10)), 0o644)
	if err := os.Link(big, filepath.Join(a, "again")); err != nil {
		t.Skip("no hard links here:", err)
	}
	os.Link(big, filepath.Join(b, "elsewhere"))
	outside := filepath.Join(root, "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "f"), []byte(strings.Repeat("y", 64<<10)), 0o644)
	os.Symlink(outside, filepath.Join(a, "link"))

	file := blocks(t, big)
	want := blocks(t, a) + file + blocks(t, filepath.Join(a, "link"))
	if got := DiskUsage(a); got != want {
		t.Errorf("DiskUsage(a) = %d, want %d: the folder, its file once (two links), the link itself", got, want)
	}
	if got, want := DiskUsage(a, b), want+blocks(t, b); got != want {
		t.Errorf("DiskUsage(a, b) = %d, want %d: the file linked from both counted once", got, want)
	}
}
