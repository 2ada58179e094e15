//go:build !linux

package fsutil

import (
	"errors"
	"os"
)

// clone is not available here: the caller copies.
func clone(dst, src *os.File) error { return errors.ErrUnsupported }
