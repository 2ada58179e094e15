// These tests protect what makes a release reproducible (make dist): the
// same folder packed on another day, under another umask, gives the same
// bytes, with the entries sorted, the commit's time, and only "runs or
// not" of each file's mode.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

const epoch = "1700000000"

// layout makes a release folder: a program, a text file and a subfolder,
// with the given modes and modification time.
func layout(t *testing.T, root string, exe, file fs.FileMode, when time.Time) string {
	t.Helper()
	dir := filepath.Join(root, "git-wt-v1-windows-amd64")
	for name, mode := range map[string]fs.FileMode{"git-wt.exe": exe, "README.md": file, "completions/git-wt.bash": file, "completions/git-wt.ps1": file} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("bytes of "+name), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pack(t *testing.T, dir, name string) []byte {
	t.Helper()
	archive := filepath.Join(t.TempDir(), name)
	if err := run(archive, dir, epoch); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var wantNames = []string{
	"git-wt-v1-windows-amd64/",
	"git-wt-v1-windows-amd64/README.md",
	"git-wt-v1-windows-amd64/completions/",
	"git-wt-v1-windows-amd64/completions/git-wt.bash",
	"git-wt-v1-windows-amd64/completions/git-wt.ps1",
	"git-wt-v1-windows-amd64/git-wt.exe",
}

var wantModes = map[string]fs.FileMode{
	"git-wt-v1-windows-amd64/":             fs.ModeDir | 0o755,
	"git-wt-v1-windows-amd64/completions/": fs.ModeDir | 0o755,
	"git-wt-v1-windows-amd64/git-wt.exe":   0o755,
}

func wantMode(name string) fs.FileMode {
	if m, ok := wantModes[name]; ok {
		return m
	}
	return 0o644
}

func TestPackGivesTheSameBytesEveryTime(t *testing.T) {
	one := layout(t, t.TempDir(), 0o755, 0o644, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	other := layout(t, t.TempDir(), 0o700, 0o600, time.Now())
	for _, name := range []string{"r.zip", "r.tar.gz"} {
		if !bytes.Equal(pack(t, one, name), pack(t, other, name)) {
			t.Errorf("%s differs with the files' times and umask", name)
		}
	}
}

func TestZipEntries(t *testing.T) {
	platform.RequireUnixModes(t) // the modes come from the files packed
	b := pack(t, layout(t, t.TempDir(), 0o700, 0o600, time.Now()), "r.zip")
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if got := f.Mode(); got != wantMode(f.Name) {
			t.Errorf("%s: mode %v, want %v", f.Name, got, wantMode(f.Name))
		}
		if got := f.Modified.Unix(); got != 1700000000 {
			t.Errorf("%s: time %d, want SOURCE_DATE_EPOCH", f.Name, got)
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("entries %q, want %q", names, wantNames)
	}
	rc, err := zr.File[5].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, _ := io.ReadAll(rc); string(got) != "bytes of git-wt.exe" {
		t.Errorf("git-wt.exe holds %q", got)
	}
}

func TestTarEntries(t *testing.T) {
	platform.RequireUnixModes(t) // the modes come from the files packed
	b := pack(t, layout(t, t.TempDir(), 0o700, 0o600, time.Now()), "r.tar.gz")
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("the gzip header has a time %v or a name %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if got := h.FileInfo().Mode(); got != wantMode(h.Name) {
			t.Errorf("%s: mode %v, want %v", h.Name, got, wantMode(h.Name))
		}
		if h.ModTime.Unix() != 1700000000 || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: time %v, owner %d:%d %q:%q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("entries %q, want %q", names, wantNames)
	}
}

func TestPackRefuses(t *testing.T) {
	dir := layout(t, t.TempDir(), 0o755, 0o644, time.Now())
	out := t.TempDir()
	for _, c := range []struct{ archive, epoch string }{
		{"r.zip", ""},
		{"r.zip", "yesterday"},
		{"r.7z", epoch},
	} {
		archive := filepath.Join(out, c.archive)
		if err := run(archive, dir, c.epoch); err == nil {
			t.Errorf("pack %s with SOURCE_DATE_EPOCH=%q: no error", c.archive, c.epoch)
		}
		if _, err := os.Stat(archive); err == nil {
			t.Errorf("pack %s with SOURCE_DATE_EPOCH=%q left an archive", c.archive, c.epoch)
		}
	}
}
