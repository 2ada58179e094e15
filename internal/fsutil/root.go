package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OpenRootDir opens the folder dir as an os.Root, through which nothing
// is written outside dir, whatever links lie below it. dir itself must be
// a folder, not a link. It is how git-wt writes into a task's worktree,
// whose files come from the task's branch: a committed symlink can point
// anywhere (SPEC §19).
func OpenRootDir(dir string) (*os.Root, error) {
	if st, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, &os.PathError{Op: "open", Path: dir, Err: errors.New("not a folder (a link?)")}
	}
	return os.OpenRoot(dir)
}

// SymlinkOnPath is a folder on the way to a destination under a root
// that is a symlink: git-wt writes nothing through it, even one that
// leads to another folder of the root.
type SymlinkOnPath struct {
	Path string // relative to the root
}

func (e *SymlinkOnPath) Error() string { return e.Path + " is a symlink" }

// MkdirNoLinks makes the folders of rel under root that are missing, as
// MkdirAll would, but never goes through a symlink: a component that is
// one is a *SymlinkOnPath, one that is something else but a folder an
// error. rel is relative to root ("." or "" is root itself).
func MkdirNoLinks(root *os.Root, rel string) error {
	rel = filepath.Clean(rel)
	if rel == "." {
		return nil
	}
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not under %s", rel, root.Name())
	}
	at := ""
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, c)
		err := root.Mkdir(at, 0o777)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		st, err := root.Lstat(at)
		switch {
		case err != nil:
			return err
		case st.Mode()&fs.ModeSymlink != 0:
			return &SymlinkOnPath{Path: at}
		case !st.IsDir():
			return &os.PathError{Op: "mkdir", Path: filepath.Join(root.Name(), at), Err: errors.New("not a folder")}
		}
	}
	return nil
}

// FirstSymlink is the first of the folders on the way from dir to rel,
// and rel itself, that is a symlink, relative to dir; "" when none is
// (what does not exist yet is none).
func FirstSymlink(dir, rel string) string {
	at := ""
	for _, c := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		at = filepath.Join(at, c)
		st, err := os.Lstat(filepath.Join(dir, at))
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return at
		}
	}
	return ""
}

// RemoveUnder removes the folder rel under dir and everything below it,
// read-only folders too, never outside dir: dir is opened as an os.Root,
// and a symlink on the way to rel, or rel itself being one, is refused
// (*SymlinkOnPath) rather than followed, even to a folder inside dir. It
// is how git-wt deletes in a task's worktree, whose files come from its
// branch and its agent (SPEC §19, §20).
func RemoveUnder(dir, rel string) error {
	rel = filepath.Clean(rel)
	if !filepath.IsLocal(rel) || rel == "." {
		return fmt.Errorf("%s is not under %s", rel, dir)
	}
	root, err := OpenRootDir(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if link := FirstSymlink(dir, rel); link != "" {
		return &SymlinkOnPath{Path: link}
	}
	if err := root.RemoveAll(rel); err == nil {
		return nil
	}
	// Make every folder writable (the walk follows no link), then try again.
	fs.WalkDir(root.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			root.Chmod(filepath.FromSlash(p), 0o700)
		}
		return nil
	})
	return root.RemoveAll(rel)
}
