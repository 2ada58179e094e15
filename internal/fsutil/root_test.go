package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// MkdirNoLinks makes the folders on the way and goes through no symlink,
// one that leads out of the root or one that stays inside.
func TestMkdirNoLinksGoesThroughNoLink(t *testing.T) {
	platform.RequireSymlinks(t)
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "real", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("real", filepath.Join(dir, "in"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		rel  string
		link string // the link named in the error; "" when none
		ok   bool
	}{
		{".", "", true},
		{"", "", true},
		{"real", "", true},
		{"real/deep/new/newer", "", true},
		{"new/a/b", "", true},
		{"out", "out", false},
		{"out/x", "out", false},
		{"in/x", "in", false},
		{"real/../out/x", "out", false},
		{"file/x", "", false},
		{"../x", "", false},
		{"/abs", "", false},
	} {
		err := MkdirNoLinks(root, filepath.FromSlash(c.rel))
		var link *SymlinkOnPath
		switch {
		case (err == nil) != c.ok:
			t.Errorf("%q: %v, want ok %v", c.rel, err, c.ok)
		case c.link != "" && (!errors.As(err, &link) || link.Path != c.link):
			t.Errorf("%q: %v, want the link %s named", c.rel, err, c.link)
		case c.link == "" && errors.As(err, &link):
			t.Errorf("%q: %v, want no link named", c.rel, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a folder was made outside: %v", entries)
	}
	if st, err := os.Stat(filepath.Join(dir, "real", "deep", "new", "newer")); err != nil || !st.IsDir() {
		t.Errorf("the folders on the way were not made: %v", err)
	}
}

// OpenRootDir refuses a root that is a link.
func TestOpenRootDirRefusesALink(t *testing.T) {
	platform.RequireSymlinks(t)
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	if root, err := OpenRootDir(link); err == nil {
		root.Close()
		t.Error("a link was opened as a root")
	}
	root, err := OpenRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	root.Close()
}

// FirstSymlink names the first link on the way, rel itself included.
func TestFirstSymlink(t *testing.T) {
	platform.RequireSymlinks(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.Symlink(t.TempDir(), filepath.Join(dir, "a", "out"))
	os.Symlink("a", filepath.Join(dir, "in"))
	for rel, want := range map[string]string{
		"a": "", "a/b": "", "a/b/gone/x": "", "gone": "",
		"a/out": "a/out", "a/out/x": "a/out", "in": "in", "in/b": "in",
	} {
		if got := FirstSymlink(dir, filepath.FromSlash(rel)); got != filepath.FromSlash(want) {
			t.Errorf("FirstSymlink(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestRemoveUnderDeletesOnlyInsideAndNeverThroughALink(t *testing.T) {
	top := t.TempDir()
	dir, outside := filepath.Join(top, "wt"), filepath.Join(top, "outside")
	os.MkdirAll(filepath.Join(dir, "node_modules", "ro", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "node_modules", "ro", "deep", "f"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(dir, "node_modules", "ro"), 0o555) // read-only, as a module cache
	os.MkdirAll(filepath.Join(outside, "node_modules"), 0o755)
	os.WriteFile(filepath.Join(outside, "node_modules", "keep"), []byte("keep"), 0o644)
	refused := []string{"../outside/node_modules", "."}
	// Where the system makes no links (Wine), the rest still runs.
	links := platform.Symlinks(t)
	if links {
		os.Symlink(outside, filepath.Join(dir, "pkg"))
		os.Symlink(filepath.Join(outside, "node_modules"), filepath.Join(dir, "target"))
		os.Symlink(outside, filepath.Join(dir, "node_modules", "escape"))
		refused = append(refused, "pkg/node_modules", "target")
	}

	for _, rel := range refused {
		if err := RemoveUnder(dir, rel); err == nil {
			t.Errorf("RemoveUnder(%q) succeeded", rel)
		}
	}
	if err := RemoveUnder(dir, "node_modules"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "node_modules")); !os.IsNotExist(err) {
		t.Errorf("node_modules is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "node_modules", "keep")); err != nil {
		t.Errorf("a file outside went: %v", err)
	}
	if !links {
		return
	}
	for _, link := range []string{"pkg", "target"} {
		if _, err := os.Lstat(filepath.Join(dir, link)); err != nil {
			t.Errorf("the link %s went: %v", link, err)
		}
	}
}
