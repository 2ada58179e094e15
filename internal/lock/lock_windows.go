package lock

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openNoFollow opens (or makes) the lock file at path, refusing a link.
// Windows has no O_NOFOLLOW: the file is opened through an os.Root on its
// folder, which no link or junction leads out of, and refused when it is
// a link itself.
func openNoFollow(path string) (*os.File, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	name := filepath.Base(path)
	if st, err := root.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return nil, errLink(path)
	}
	return root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
}

// The whole file is locked, as flock does: a range of every byte.
const allBytes = ^uint32(0)

// tryLock takes the LockFileEx lock on f if nobody holds it: ok is false,
// with no error, when another process holds it.
func tryLock(f *os.File) (ok bool, err error) {
	err = lockFileEx(f, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	default:
		return false, err
	}
}

// waitLock blocks in LockFileEx until it has the lock. Windows drops the
// lock when the handle is closed or its process ends, as flock's kernel does.
func waitLock(f *os.File) error {
	return lockFileEx(f, windows.LOCKFILE_EXCLUSIVE_LOCK)
}

func lockFileEx(f *os.File, flags uint32) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, allBytes, allBytes, new(windows.Overlapped))
}
