package proc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The files HoldersIn asks about: the regular files under the folder, at
// most the limit, never a link's target nor the folders themselves.
func TestRegularFilesUnderStopsAtTheLimitAndFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "a"))
	write(filepath.Join(dir, "sub", "b"))
	write(filepath.Join(dir, "sub", "deeper", "c"))
	write(filepath.Join(outside, "secret"))
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "filelink")); err != nil {
		t.Fatal(err)
	}

	all := regularFilesUnder(dir, 100)
	want := []string{filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b"), filepath.Join(dir, "sub", "deeper", "c")}
	if !slices.Equal(all, want) {
		t.Fatalf("regularFilesUnder = %q, want %q", all, want)
	}
	if got := regularFilesUnder(dir, 2); !slices.Equal(got, want[:2]) {
		t.Fatalf("regularFilesUnder with a limit of 2 = %q, want %q", got, want[:2])
	}
	if got := regularFilesUnder(filepath.Join(dir, "missing"), 100); len(got) != 0 {
		t.Fatalf("regularFilesUnder of a missing folder = %q, want none", got)
	}
}
