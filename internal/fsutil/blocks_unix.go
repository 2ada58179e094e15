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

// fileKey tells files apart across the paths DiskUsage walks.
type fileKey struct{ dev, ino uint64 }

// hardLinked says whether the file has more than one hard link, and its
// key when it has.
func hardLinked(info fs.FileInfo) (fileKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink < 2 || info.IsDir() {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}, true
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
