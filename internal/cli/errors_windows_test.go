// These tests protect the --json error kind of Windows' own disk-full
// errors, which syscall.ENOSPC never matches there.
package cli

import (
	"context"
	"io/fs"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/git-wt/git-wt/internal/exitcode"
)

func TestWindowsDiskFullIsNoSpace(t *testing.T) {
	for _, errno := range []windows.Errno{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL} {
		err := &fs.PathError{Op: "write", Path: `C:\wt\t1\big`, Err: errno}
		if kind := errorKind(context.Background(), err); kind != exitcode.KindNoSpace {
			t.Errorf("%v: kind %s, want %s", errno, kind, exitcode.KindNoSpace)
		}
	}
}
