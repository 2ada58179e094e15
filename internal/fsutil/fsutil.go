// Package fsutil holds the file-system safety checks and removal that
// git-wt's commands share.
package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or lies below it. Both must be clean
// absolute paths.
func Within(dir, path string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// ResolveExisting resolves symlinks in the longest existing prefix of
// path and joins the rest on unchanged, so a path that does not exist yet
// can be checked against where it would really land.
func ResolveExisting(path string) (string, error) {
	path = filepath.Clean(path)
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest), nil
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}

// RemoveAll removes path and everything below it, also when the tree holds
// read-only folders (a Go module cache, say), which os.RemoveAll cannot
// empty. It never follows a symlink: a link is removed, not its target.
func RemoveAll(path string) error {
	err := os.RemoveAll(path)
	if err == nil {
		return nil
	}
	// Make every folder writable, then try again.
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}

// DiskUsage is the disk space the tree at path takes, in bytes (allocated
// blocks, as du counts them; links are not followed).
func DiskUsage(path string) int64 {
	var total int64
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			total += allocated(info)
		}
		return nil
	})
	return total
}
