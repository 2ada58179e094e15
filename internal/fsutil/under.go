package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// OpenUnder opens the file at path, which lies under the folder dir, as
// os.OpenFile does, making its folders as needed — but never outside dir:
// dir must be a folder, not a link, and a link on the way that leads out
// of dir, the file's own included, is refused (os.Root). It is how git-wt
// writes its own files in <common dir>/wt, where anything that can write
// the git dir (an agent whose sandbox guards only .git/config and
// .git/hooks) can plant a link to a file of the user's (SPEC §19).
func OpenUnder(dir, path string, flag int, perm os.FileMode) (*os.File, error) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not under %s", path, dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return nil, &os.PathError{Op: "open", Path: dir, Err: fmt.Errorf("not a folder (a link?)")}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if sub := filepath.Dir(rel); sub != "." {
		if err := root.MkdirAll(sub, 0o777); err != nil {
			return nil, err
		}
	}
	return root.OpenFile(rel, flag, perm)
}

// TouchUnder sets the time of the file at path, under the folder dir, to
// now, making the file if needed — never through a link that leads out of
// dir (OpenUnder): a stamp git-wt keeps in <common dir>/wt.
func TouchUnder(dir, path string) error {
	now := time.Now()
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		return os.Chtimes(path, now, now)
	}
	f, err := OpenUnder(dir, path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	f.Close()
	return os.Chtimes(path, now, now) // through a link inside dir, if it was one
}
