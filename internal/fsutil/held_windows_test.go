// These tests protect what git-wt does when Windows refuses to rename a
// file another handle has open (os.Open shares no deletion; a folder
// with such a file in it is refused the same): Rename waits a moment for
// the hold to end, and reports a hold that lasts, which Held recognises.
package fsutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// heldFile is a new file, open; it is removed at the test's end (best
// effort: Wine's deletions fail where Windows' do not).
func heldFile(t *testing.T) (path string, file *os.File) {
	t.Helper()
	root, err := os.MkdirTemp("", "held-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	path = filepath.Join(root, "open.txt")
	if err := os.WriteFile(path, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, f
}

func TestRenameWaitsForAHoldThatEnds(t *testing.T) {
	path, f := heldFile(t)
	if err := os.Rename(path, path+".aside"); err == nil {
		t.Skip("this system renames a file that is open")
	}
	go func() { time.Sleep(100 * time.Millisecond); f.Close() }()
	if err := Rename(path, path+".aside"); err != nil {
		t.Fatalf("Rename after the file was let go: %v", err)
	}
}

func TestRenameReportsAHoldThatLasts(t *testing.T) {
	path, _ := heldFile(t)
	start := time.Now()
	err := Rename(path, path+".aside")
	if err == nil {
		t.Skip("this system renames a file that is open")
	}
	if !Held(err) {
		t.Fatalf("Rename of a held file: %v, which Held does not recognise", err)
	}
	if waited := time.Since(start); waited < time.Second || waited > 10*time.Second {
		t.Fatalf("Rename waited %v, want about 2 s", waited)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the file is not where it was: %v", err)
	}
}

func TestWindowsErrorsAreReadAsTheirUnixTwins(t *testing.T) {
	if !NoSpace(&os.PathError{Op: "write", Path: `C:\wt\f`, Err: windows.ERROR_DISK_FULL}) || !NoSpace(windows.ERROR_HANDLE_DISK_FULL) {
		t.Error("Windows' disk full is not NoSpace")
	}
	if !CrossDevice(&os.LinkError{Op: "rename", Old: `C:\wt\a`, New: `D:\t\a`, Err: windows.ERROR_NOT_SAME_DEVICE}) {
		t.Error("ERROR_NOT_SAME_DEVICE is not CrossDevice")
	}
	if !Held(windows.ERROR_SHARING_VIOLATION) || Held(windows.ERROR_FILE_NOT_FOUND) {
		t.Error("Held misreads a sharing violation or a missing file")
	}
}
