//go:build !linux && !darwin

package fsutil

import (
	"errors"
	"os"
)

// cloneNew and clone are not available here: the caller copies.
func cloneNew(src string, root *os.Root, dst string) error { return errors.ErrUnsupported }
func clone(dst, src *os.File) error                        { return errors.ErrUnsupported }
