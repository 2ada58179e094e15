//go:build windows && (amd64 || arm64) && !gitwt_noprocfs

package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// A file this process has open in a folder: HoldersIn names this process
// by pid and name. Wine's Restart Manager is a stub that names nobody:
// there it must answer none, without an error.
func TestWindowsHoldersInNamesTheProcessThatHasAFileOpen(t *testing.T) {
	dir := tempDir(t)
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	users, err := HoldersIn(dir)
	if err != nil {
		t.Fatalf("HoldersIn: %v", err)
	}
	if len(users) == 0 && underWine() {
		t.Skip("Wine's Restart Manager is a stub that names no holder: this process is not checked")
	}
	for _, u := range users {
		if u.PID == os.Getpid() {
			if u.Name == "" {
				t.Fatalf("this process is named with no name: %+v", u)
			}
			return
		}
	}
	t.Fatalf("the holders of a file in %s are %+v, want this process %d", dir, users, os.Getpid())
}
