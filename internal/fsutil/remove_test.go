// These tests protect RemoveAll: it deletes a whole tree, read-only
// folders included, on several goroutines, and never anything a symlink
// points at.
package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestRemoveAllDeletesTheTreeAndNoLinkTarget(t *testing.T) {
	platform.RequireSymlinks(t)
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("keep"), 0o644)
	tree := filepath.Join(root, "tree")
	for d := 0; d < 20; d++ {
		dir := filepath.Join(tree, fmt.Sprintf("d%02d", d), "sub")
		os.MkdirAll(dir, 0o755)
		for f := 0; f < 10; f++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), []byte("x"), 0o644)
		}
	}
	os.Symlink(outside, filepath.Join(tree, "link-to-outside"))
	os.Symlink(outside, filepath.Join(tree, "d03", "sub", "deep-link"))
	os.WriteFile(filepath.Join(tree, "top.txt"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(tree, "d07", "sub"), 0o555) // read-only: a Go module cache, say
	os.Chmod(filepath.Join(tree, "d07"), 0o555)
	if err := RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(outside, "keep.txt")); err != nil || string(data) != "keep" {
		t.Fatalf("a symlink's target was touched: %v", err)
	}
}

func TestRemoveAllOfALinkRemovesOnlyTheLink(t *testing.T) {
	platform.RequireSymlinks(t)
	root := t.TempDir()
	target := filepath.Join(root, "target")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "keep.txt"), []byte("keep"), 0o644)
	link := filepath.Join(root, "link")
	os.Symlink(target, link)
	if err := RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Fatal("the link is still there")
	}
	if _, err := os.Stat(filepath.Join(target, "keep.txt")); err != nil {
		t.Fatal("the link's target lost its file")
	}
	if err := RemoveAll(filepath.Join(root, "never-was")); err != nil {
		t.Fatalf("removing nothing: %v", err)
	}
}
