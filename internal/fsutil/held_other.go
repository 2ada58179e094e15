//go:build !windows

package fsutil

import (
	"errors"
	"syscall"
)

// Held is false: a unix system renames and unlinks a file that another
// process holds open.
func Held(error) bool { return false }

// NoSpace reports whether err is a full disk (ENOSPC).
func NoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// CrossDevice reports whether err is a rename refused because it crosses
// file systems (EXDEV).
func CrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
