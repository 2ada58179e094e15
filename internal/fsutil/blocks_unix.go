//go:build unix

package fsutil

import (
	"io/fs"
	"syscall"
)

// allocated is the space a file takes on disk: its blocks, else its size.
func allocated(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}

// FreeSpace is the space an unprivileged user may still write on the file
// system that holds path.
func FreeSpace(path string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
