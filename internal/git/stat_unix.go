//go:build unix

package git

import (
	"os"
	"syscall"
)

// fileIDs is the device and inode of a file that was stat'ed.
func fileIDs(st os.FileInfo) (dev, ino uint64, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(sys.Dev), uint64(sys.Ino), true
}

// fileOwner is the user id of the owner of a file that was stat'ed.
func fileOwner(st os.FileInfo) (uid uint32, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Uid, true
}
