package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Copier copies files and folders as `cp -a` would, but never over
// anything: an existing file at the destination is kept. Files are cloned
// (copy-on-write: FICLONE, a reflink) where the file system allows, else
// copied; symlinks are copied as symlinks; permissions and modification
// times are kept. Files are copied by a few workers at once. Its counters
// may be read while it works, to show progress.
type Copier struct {
	files, bytes, cloned, kept atomic.Int64

	mu   sync.Mutex
	errs []error
}

// copyWorkers is how many files are copied at once: copying is bound by
// the disk and by system calls, not by the CPU.
const copyWorkers = 4

// Stats is what a Copier has done so far.
type Stats struct {
	Files  int64 // files and links written
	Bytes  int64
	Cloned int64 // files that share their blocks with the original
	Kept   int64 // destinations that existed already, left as they were
}

// Stats returns the counters; safe to call while Copy runs.
func (c *Copier) Stats() Stats {
	return Stats{Files: c.files.Load(), Bytes: c.bytes.Load(), Cloned: c.cloned.Load(), Kept: c.kept.Load()}
}

// Errors returns what could not be copied.
func (c *Copier) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

func (c *Copier) fail(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// dirDone is a folder whose mode and time are set once its content is in
// place (a read-only folder could not be filled afterwards).
type dirDone struct {
	path string // relative to the root
	mode fs.FileMode
	mod  time.Time
}

// Copy copies the file, symlink or folder tree at src to rel under the
// folder root, never following a symlink, and never writing outside root
// (os.Root): the destination is a task's worktree, whose folders its
// branch can make links to anywhere. The folder rel is in must exist.
// What fails is collected (see Errors) and the rest is copied still.
func (c *Copier) Copy(src string, root *os.Root, rel string) {
	jobs := make(chan [2]string)
	var wg sync.WaitGroup
	for i := 0; i < copyWorkers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				c.copyFile(j[0], root, j[1])
			}
		}()
	}
	var dirs []dirDone
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			c.fail(err)
			return nil
		}
		below, _ := filepath.Rel(src, p)
		to := filepath.Join(rel, below)
		info, err := d.Info()
		if err != nil {
			c.fail(err)
			return nil
		}
		switch {
		case d.IsDir():
			err := root.Mkdir(to, 0o700)
			if errors.Is(err, fs.ErrExist) {
				if st, serr := root.Lstat(to); serr != nil || !st.IsDir() {
					c.kept.Add(1)
					return filepath.SkipDir // something else is there: keep it
				}
				return nil // fill the folder that is there; keep its mode
			}
			if err != nil {
				c.fail(err)
				return filepath.SkipDir
			}
			dirs = append(dirs, dirDone{to, info.Mode().Perm(), info.ModTime()})
		case info.Mode()&fs.ModeSymlink != 0:
			c.copyLink(p, root, to)
		case info.Mode().IsRegular():
			jobs <- [2]string{p, to}
		}
		// Sockets, fifos and devices are not files to copy.
		return nil
	})
	close(jobs)
	wg.Wait()
	for i := len(dirs) - 1; i >= 0; i-- { // deepest first
		d := dirs[i]
		root.Chtimes(d.path, d.mod, d.mod)
		if err := root.Chmod(d.path, d.mode); err != nil {
			c.fail(err)
		}
	}
}

func (c *Copier) copyLink(src string, root *os.Root, dst string) {
	target, err := os.Readlink(src)
	if err == nil {
		err = root.Symlink(target, dst)
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		c.kept.Add(1)
	case err != nil:
		c.fail(err)
	default:
		c.files.Add(1)
	}
}

func (c *Copier) copyFile(src string, root *os.Root, dst string) {
	if err := c.copyData(src, root, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			c.kept.Add(1)
			return
		}
		c.fail(err)
	}
}

// writeCopy makes the new file dst under root with in's content: a clone
// of its blocks where the file system shares them (clone), else a copy.
func (c *Copier) writeCopy(in *os.File, src string, root *os.Root, dst string) error {
	// Writable while it is filled; the real mode (read-only, say) after.
	out, err := root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if clone(out, in) == nil {
		c.cloned.Add(1)
	} else if _, err = io.Copy(out, in); err != nil {
		out.Close()
		root.Remove(dst)
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		root.Remove(dst)
		return err
	}
	return nil
}

// copyData writes a new file at dst under root with src's content, mode
// and modification time.
func (c *Copier) copyData(src string, root *os.Root, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	switch err := cloneNew(src, root, dst); {
	case err == nil:
		c.cloned.Add(1)
	case errors.Is(err, fs.ErrExist):
		return err
	default:
		if err := c.writeCopy(in, src, root, dst); err != nil {
			return err
		}
	}
	root.Chtimes(dst, st.ModTime(), st.ModTime())
	if err := root.Chmod(dst, st.Mode().Perm()); err != nil {
		return err
	}
	c.files.Add(1)
	c.bytes.Add(st.Size())
	return nil
}
