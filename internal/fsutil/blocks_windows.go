package fsutil

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// allocated is the space a file takes on disk; Go's file info on Windows
// has no block count, so its size.
func allocated(info fs.FileInfo) int64 {
	return info.Size()
}

// fileKey tells files apart across the paths DiskUsage walks.
type fileKey struct{}

// hardLinked says whether the file has more than one hard link: Go's file
// info on Windows does not say, so each link counts.
func hardLinked(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }

// FreeSpace is the space the calling user may still write on the volume
// that holds path.
func FreeSpace(path string) (int64, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	var free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, nil, nil); err != nil {
		return 0, err
	}
	return int64(free), nil
}
