//go:build unix

package git

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCheckGitDirConfigRefusesAFifoAtOnce(t *testing.T) {
	common := t.TempDir()
	path := filepath.Join(common, "config.worktree")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	var unsafe *UnsafeGitDirError
	if err := CheckGitDirConfig(common, common); !errors.As(err, &unsafe) || unsafe.Path != path {
		t.Fatalf("a fifo: %v", err)
	}
}
