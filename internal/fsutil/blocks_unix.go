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

// linkID names a file that has more than one hard link, so that a walk
// counts its blocks once; ok is false for a file with one link.
func linkID(info fs.FileInfo) (id [2]uint64, ok bool) {
	st, isStat := info.Sys().(*syscall.Stat_t)
	if !isStat || st.Nlink < 2 || info.IsDir() {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
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
