// These tests protect the rules that read Windows' file errors, on
// Linux, from the errors' numbers: which refusals a removal waits out (a
// file another program holds), and which are a full disk or a rename
// across volumes; and the bounded wait itself.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestWindowsErrorRules(t *testing.T) {
	for _, tc := range []struct {
		err                        error
		held, diskFull, notSameDev bool
	}{
		{syscall.Errno(32), true, false, false},  // ERROR_SHARING_VIOLATION
		{syscall.Errno(33), true, false, false},  // ERROR_LOCK_VIOLATION
		{syscall.Errno(5), true, false, false},   // ERROR_ACCESS_DENIED: a file in use
		{syscall.Errno(145), true, false, false}, // ERROR_DIR_NOT_EMPTY: a deletion pending
		{&fs.PathError{Op: "unlinkat", Path: `C:\wt\a\node_modules\x.node`, Err: syscall.Errno(32)}, true, false, false},
		{&os.LinkError{Op: "rename", Old: `C:\wt\a`, New: `C:\wt\.trash\a`, Err: syscall.Errno(5)}, true, false, false},
		{fmt.Errorf("moving aside: %w", syscall.Errno(33)), true, false, false},
		{syscall.Errno(112), false, true, false}, // ERROR_DISK_FULL
		{syscall.Errno(39), false, true, false},  // ERROR_HANDLE_DISK_FULL
		{&fs.PathError{Op: "write", Path: `C:\wt\a\f`, Err: syscall.Errno(112)}, false, true, false},
		{&os.LinkError{Op: "rename", Old: `C:\wt\a`, New: `D:\trash\a`, Err: syscall.Errno(17)}, false, false, true}, // ERROR_NOT_SAME_DEVICE
		{syscall.Errno(2), false, false, false},                                                                      // ERROR_FILE_NOT_FOUND
		{syscall.Errno(3), false, false, false},                                                                      // ERROR_PATH_NOT_FOUND
		{syscall.Errno(183), false, false, false},                                                                    // ERROR_ALREADY_EXISTS
		{errors.New("sharing violation"), false, false, false},
		{nil, false, false, false},
	} {
		if got := windowsHeld(tc.err); got != tc.held {
			t.Errorf("windowsHeld(%v) = %v", tc.err, got)
		}
		if got := windowsDiskFull(tc.err); got != tc.diskFull {
			t.Errorf("windowsDiskFull(%v) = %v", tc.err, got)
		}
		if got := windowsNotSameDevice(tc.err); got != tc.notSameDev {
			t.Errorf("windowsNotSameDevice(%v) = %v", tc.err, got)
		}
	}
}

func TestRetryHeldWaitsAboutTwoSecondsThenReports(t *testing.T) {
	held := errors.New("held")
	isHeld := func(err error) bool { return err == held }
	for _, tc := range []struct {
		name      string
		failures  int   // how many tries fail before one succeeds
		failWith  error // what they fail with
		wantTries int
		wantErr   error
		wantWait  time.Duration
	}{
		{"done at once", 0, held, 1, nil, 0},
		{"let go after three tries", 3, held, 4, nil, 70 * time.Millisecond},
		{"held throughout", 100, held, 9, held, 2 * time.Second},
		{"another failure is not waited on", 100, fs.ErrNotExist, 1, fs.ErrNotExist, 0},
	} {
		tries, waited := 0, time.Duration(0)
		err := retryHeld(func() error {
			tries++
			if tries <= tc.failures {
				return tc.failWith
			}
			return nil
		}, isHeld, func(d time.Duration) { waited += d })
		if err != tc.wantErr || tries != tc.wantTries || waited != tc.wantWait {
			t.Errorf("%s: %v after %d tries and %v, want %v after %d and %v", tc.name, err, tries, waited, tc.wantErr, tc.wantTries, tc.wantWait)
		}
	}
}
