// Package fsutil holds the file-system safety checks and removal that
// git-wt's commands share.
package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/async"
)

// Within reports whether path is dir or lies below it. Both must be clean
// absolute paths.
func Within(dir, path string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, parentPrefix) && !filepath.IsAbs(rel)
}

// SamePath says whether a and b are the same path once cleaned. It is the
// one comparison of paths: on Windows git prints C:/… where Go writes C:\…,
// and the file system ignores case, so there a path is compared across
// both separators and case (PathKey). Links are not resolved.
func SamePath(a, b string) bool { return PathKey(a) == PathKey(b) }

// PathKey is the form of path that SamePath compares, for a map keyed by
// path: cleaned, and on Windows with forward slashes made back slashes
// and lower case.
func PathKey(path string) string { return foldPath(filepath.Clean(path)) }

// parentPrefix starts a relative path that leads out of its folder: "../",
// on Windows "..\" (what filepath.Rel gives there).
const parentPrefix = ".." + string(filepath.Separator)

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
// On Windows it never follows a junction either, and deletes a read-only
// file without making it writable first: os.RemoveAll opens each entry
// with FILE_OPEN_REPARSE_POINT (a link or junction is deleted as itself)
// and deletes with FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE (on a
// system without it, it clears the attribute of the file it is about to
// delete); a deletion that another process's hold on a file refuses is
// tried again for about 2 s (Held) before it is reported, the error
// naming the file.
func RemoveAll(path string) error {
	return retryHeld(func() error { return removeAllWritable(path) }, Held, time.Sleep)
}

// Rename is os.Rename, tried again for about 2 s while another process's
// hold on a file refuses it (Held: Windows; a folder's rename fails while
// any file in it is open). Over an existing file it replaces it in one
// step everywhere: on Windows os.Rename is MoveFileEx with
// MOVEFILE_REPLACE_EXISTING.
func Rename(oldpath, newpath string) error {
	return retryHeld(func() error { return os.Rename(oldpath, newpath) }, Held, time.Sleep)
}

// ReadFile is os.ReadFile, tried again for about 2 s while another
// process's hold refuses it (Held: Windows, where a file being replaced by
// a rename cannot be opened for a moment). For the small files that
// several git-wts replace and read at once.
func ReadFile(path string) ([]byte, error) {
	var data []byte
	err := retryHeld(func() (err error) {
		data, err = os.ReadFile(path)
		return err
	}, Held, time.Sleep)
	return data, err
}

// removeAllWritable is RemoveAll's one try: the folders made writable
// when the first pass fails.
func removeAllWritable(path string) error {
	err := removeAll(path)
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
	return removeAll(path)
}

// removeAll is os.RemoveAll with the entries of a folder removed on as
// many goroutines as there are cores: unlinking is the kernel's work, which
// runs on every core, and rm of a large worktree waited on it. A symlink is
// removed as itself, never read as a folder.
func removeAll(path string) error {
	dir, err := openDirNoFollow(path)
	if err != nil {
		return os.RemoveAll(path) // not a folder (or gone): os.RemoveAll knows
	}
	entries, _ := dir.ReadDir(-1)
	dir.Close()
	errs := make([]error, len(entries))
	async.Each(len(entries), 0, func(i int) {
		errs[i] = os.RemoveAll(filepath.Join(path, entries[i].Name()))
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return os.RemoveAll(path)
}

// DiskUsage is the disk space the trees at paths take together, in bytes
// (allocated blocks, as du counts them; links are not followed; a file
// with several hard links is counted once, as du counts it: a pnpm or
// cargo tree links one file into many places, and deleting one of them
// frees it once).
func DiskUsage(paths ...string) int64 {
	var total int64
	seen := map[fileKey]bool{}
	for _, path := range paths {
		filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if key, linked := hardLinked(info); linked {
				if seen[key] {
					return nil
				}
				seen[key] = true
			}
			total += allocated(info)
			return nil
		})
	}
	return total
}

// UnwrapPathErr drops the path from a *fs.PathError: our messages name the
// path themselves.
func UnwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// HoldsEntries says whether path is a folder with anything in it: a
// folder git-wt may not take as a new worktree's (someone's files).
func HoldsEntries(path string) bool {
	entries, _ := os.ReadDir(path)
	return len(entries) > 0
}
