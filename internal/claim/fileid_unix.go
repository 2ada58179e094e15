//go:build unix

package claim

import (
	"fmt"
	"os"
	"syscall"
)

// fileID is the device and inode of path: a copy of it has others.
func fileID(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
}
