package fsutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A small file that several git-wts replace and read at once (the
// machine id) cannot be opened on Windows for the moment another process
// holds it without sharing: ReadFile waits for it, as Rename does.
func TestReadFileWaitsOutAMomentaryHold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "machine-id")
	if err := os.WriteFile(path, []byte("id\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	name, _ := syscall.UTF16PtrFromString(path)
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Skipf("cannot hold the file without sharing: %v", err)
	}
	if _, err := os.ReadFile(path); err == nil {
		syscall.CloseHandle(h)
		t.Skip("this system opens a file another process holds without sharing")
	}
	letGo := time.AfterFunc(100*time.Millisecond, func() { syscall.CloseHandle(h) })
	defer letGo.Stop()
	data, err := ReadFile(path)
	if err != nil || string(data) != "id\n" {
		t.Fatalf("ReadFile of a file held for 100 ms: %q, %v", data, err)
	}
}
