package fsutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// OpenUnder writes inside its folder, through a link that stays there,
// and never through one that leads out, whether the link is the file, a
// folder on the way or the folder itself.
func TestOpenUnderNeverWritesOutsideItsFolder(t *testing.T) {
	platform.RequireSymlinks(t)
	root := t.TempDir()
	dir, outside := filepath.Join(root, "wt"), filepath.Join(root, "outside")
	os.MkdirAll(filepath.Join(outside, "logs"), 0o755)
	os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644)
	os.MkdirAll(filepath.Join(dir, "in"), 0o755)
	os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "out-link"))
	os.Symlink("in", filepath.Join(dir, "in-link"))
	os.Symlink(filepath.Join(outside, "logs"), filepath.Join(dir, "logs"))
	os.Symlink(dir, filepath.Join(root, "linked-wt"))
	for _, c := range []struct {
		dir, name string
		ok        bool
	}{
		{dir, "events.jsonl", true},
		{dir, "new/logs/T.log", true},
		{dir, "in-link/f", true},
		{dir, "out-link", false},
		{dir, "logs/T.log", false},
		{dir, "../outside/victim", false},
		{filepath.Join(root, "linked-wt"), "events.jsonl", false},
	} {
		f, err := OpenUnder(c.dir, filepath.Join(c.dir, c.name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.name, err, c.ok)
		}
		if err == nil {
			f.WriteString("written")
			f.Close()
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "victim")); string(data) != "keep" {
		t.Errorf("the file outside holds %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Join(outside, "logs")); len(entries) != 0 {
		t.Errorf("a file was made outside: %v", entries)
	}
}
