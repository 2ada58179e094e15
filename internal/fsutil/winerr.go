package fsutil

import (
	"errors"
	"slices"
	"syscall"
	"time"
)

// Windows' error numbers (winerror.h) that git-wt's file rules name. They
// are plain numbers in a file built everywhere, so that the rules are
// tested on Linux; only the Windows build applies them (held_windows.go):
// on Linux the same numbers are other errors (32 is EPIPE).
const (
	winAccessDenied     syscall.Errno = 5   // ERROR_ACCESS_DENIED: also a file in use, or deleted but still open
	winNotSameDevice    syscall.Errno = 17  // ERROR_NOT_SAME_DEVICE: a rename across volumes (EXDEV)
	winSharingViolation syscall.Errno = 32  // ERROR_SHARING_VIOLATION: another process has the file open
	winLockViolation    syscall.Errno = 33  // ERROR_LOCK_VIOLATION: another process locked a part of it
	winHandleDiskFull   syscall.Errno = 39  // ERROR_HANDLE_DISK_FULL (ENOSPC)
	winDiskFull         syscall.Errno = 112 // ERROR_DISK_FULL (ENOSPC)
	winDirNotEmpty      syscall.Errno = 145 // ERROR_DIR_NOT_EMPTY: a file in it still held, its deletion pending
)

// windowsHeld reports whether err, from a rename or a delete on Windows,
// is the system refusing because another process holds a file (an
// editor, a shell's working folder, a virus scanner, an indexer, node):
// that refusal ends when the process lets go. Access denied is also what
// a file without the right gives; it is retried the same (briefly) as
// Windows does not tell the two apart.
func windowsHeld(err error) bool {
	return isErrno(err, winSharingViolation, winLockViolation, winAccessDenied, winDirNotEmpty)
}

// windowsDiskFull reports whether err is Windows' disk full.
func windowsDiskFull(err error) bool { return isErrno(err, winDiskFull, winHandleDiskFull) }

// windowsNotSameDevice reports whether err is Windows refusing a rename
// to another volume.
func windowsNotSameDevice(err error) bool { return isErrno(err, winNotSameDevice) }

func isErrno(err error, numbers ...syscall.Errno) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && slices.Contains(numbers, errno)
}

// heldWaits are the waits between the tries of an operation that another
// process's hold on a file refused: doubling from 10 ms, 2 s in all. A
// scanner or an indexer lets go in a moment; a program that keeps the file
// open is reported after that.
var heldWaits = []time.Duration{10, 20, 40, 80, 160, 320, 640, 730}

// retryHeld runs op, and again after each of heldWaits (milliseconds)
// while it fails with an error held says is a hold on a file; it returns
// op's last error.
func retryHeld(op func() error, held func(error) bool, sleep func(time.Duration)) error {
	err := op()
	for _, wait := range heldWaits {
		if err == nil || !held(err) {
			return err
		}
		sleep(wait * time.Millisecond)
		err = op()
	}
	return err
}
