//go:build unix

package fsutil

import (
	"os"
	"syscall"
)

// openDirNoFollow opens path if it is a folder, never through a link.
func openDirNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
}

// Executable says whether this process may run the file at path, as git
// asks of a hook: access(2) with X_OK.
func Executable(path string) bool {
	return syscall.Access(path, 1 /* X_OK */) == nil
}

// Owner is the user and group that own a file that was stat'ed.
func Owner(st os.FileInfo) (uid, gid uint32, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return sys.Uid, sys.Gid, true
}
