package fsutil

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// cloneNew makes dst under root, which must not exist yet, a clone of src
// sharing its blocks: clonefile(2) on APFS, into dst's folder opened
// through root, so that it never lands outside root. It fails with
// fs.ErrExist when dst exists (kept, as by a copy), and otherwise
// (another file system, another volume) the caller copies. clonefile
// makes the file whole or not at all.
func cloneNew(src string, root *os.Root, dst string) error {
	dir, err := root.Open(filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer dir.Close()
	err = unix.Clonefileat(unix.AT_FDCWD, src, int(dir.Fd()), filepath.Base(dst), unix.CLONE_NOFOLLOW|unix.CLONE_NOOWNERCOPY)
	if errors.Is(err, unix.EEXIST) {
		return &os.PathError{Op: "clonefile", Path: dst, Err: os.ErrExist}
	}
	return err
}

// clone: macOS clones by path (cloneNew), not into an open file.
func clone(dst, src *os.File) error { return errors.ErrUnsupported }
