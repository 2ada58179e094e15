// Command pack writes one release archive of a folder, the same bytes
// every time (make dist, release/dist.sh):
//
//	pack ARCHIVE DIR
//
// ARCHIVE ends in .zip (the Windows archives) or .tar.gz (the others); it
// holds DIR's base name and everything under it. What tar and zip would
// take from the machine is fixed instead, so that a release built twice
// from one commit has one SHA256SUMS: the entries are in byte order of
// their names, every time is SOURCE_DATE_EPOCH (seconds since 1970;
// dist.sh sets it to the commit's time), a file's mode is 0755 if it is
// executable and 0644 if not, a folder's 0755, with no owner.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pack ARCHIVE.zip|ARCHIVE.tar.gz DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
}

func run(archive, dir, epoch string) error {
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("SOURCE_DATE_EPOCH must be seconds since 1970, not %q", epoch)
	}
	entries, err := list(dir)
	if err != nil {
		return err
	}
	f, err := os.Create(archive)
	if err != nil {
		return err
	}
	mtime := time.Unix(secs, 0).UTC()
	switch {
	case strings.HasSuffix(archive, ".zip"):
		err = writeZip(f, entries, mtime)
	case strings.HasSuffix(archive, ".tar.gz"):
		err = writeTarGz(f, entries, mtime)
	default:
		err = fmt.Errorf("%s: the archive's name must end in .zip or .tar.gz", archive)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(archive)
	}
	return err
}

// entry is one file or folder to archive: its name in the archive
// (slash-separated, starting with DIR's base name) and where it is.
type entry struct {
	name, path string
	size       int64
	dir, exec  bool
}

// mode is the entry's mode in the archive: nothing of the machine's
// umask, only whether it runs.
func (e entry) mode() fs.FileMode {
	switch {
	case e.dir:
		return fs.ModeDir | 0o755
	case e.exec:
		return 0o755
	}
	return 0o644
}

// list walks dir in lexical order (filepath.WalkDir's), which is the byte
// order of the archive names, since every name starts with the same base.
func list(dir string) ([]entry, error) {
	base := filepath.Base(filepath.Clean(dir))
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() && !info.IsDir() {
			return fmt.Errorf("%s: only files and folders go in a release archive", p)
		}
		entries = append(entries, entry{
			name: path.Join(base, filepath.ToSlash(rel)),
			path: p,
			size: info.Size(),
			dir:  info.IsDir(),
			exec: info.Mode()&0o111 != 0,
		})
		return nil
	})
	return entries, err
}

func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		if e.dir {
			h.Name += "/"
			h.Method = zip.Store
		}
		h.SetMode(e.mode())
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if err := copyFile(fw, e); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	gz := gzip.NewWriter(w) // no name and no time in the gzip header
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Size: e.size, Mode: int64(e.mode().Perm()), ModTime: mtime}
		if e.dir {
			h.Typeflag, h.Name, h.Size = tar.TypeDir, e.name+"/", 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if err := copyFile(tw, e); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// copyFile writes a file entry's bytes to w; a folder has none.
func copyFile(w io.Writer, e entry) error {
	if e.dir {
		return nil
	}
	f, err := os.Open(e.path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
