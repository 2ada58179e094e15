package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// mountUnder reads this mount namespace's table; where it cannot (no
// /proc), it walks dir for a folder on another device.
func mountUnder(dir string, self bool) (string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return deviceChange(dir, self)
	}
	return firstWithin(dir, parseMountinfo(data), self), nil
}

var errFound = errors.New("found")

// deviceChange is the first folder below dir (at it too, when self; no
// link followed) on another device than the one above it: a mount point
// of another file system (a bind mount of the same one it cannot see).
func deviceChange(dir string, self bool) (string, error) {
	above := filepath.Dir(dir)
	if !self {
		above = dir
	}
	top, err := os.Stat(above)
	if err != nil {
		return "", err
	}
	want, ok := device(top)
	if !ok {
		return "", nil
	}
	found := ""
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if dev, ok := device(info); ok && dev != want {
				found = p
				return errFound
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", err
	}
	return found, nil
}

func device(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
