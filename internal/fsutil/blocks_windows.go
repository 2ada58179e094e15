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

// linkID is unknown on Windows (a file's id needs a handle): a
// hard-linked file counts once per link there.
func linkID(fs.FileInfo) (id [2]uint64, ok bool) { return id, false }

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
