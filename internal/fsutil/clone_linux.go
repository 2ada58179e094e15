package fsutil

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// clone makes dst share src's blocks (a reflink) on file systems that
// can (Btrfs, XFS, ...); elsewhere it fails and the caller copies. The
// FICLONE request number differs between architectures (mips, ppc and
// sparc encode it otherwise): x/sys/unix knows each.
func clone(dst, src *os.File) error {
	return unix.IoctlFileClone(int(dst.Fd()), int(src.Fd()))
}

// cloneNew: Linux clones into an open file (clone), not by path.
func cloneNew(src string, root *os.Root, dst string) error { return errors.ErrUnsupported }
