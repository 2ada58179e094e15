// These tests protect locating a repository without rev-parse: wherever
// Discover and Confirm give an answer, it is rev-parse's answer, and in
// every layout where the two could differ they give none.
package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/githome"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// newRepo makes a repository with one commit at dir.
func newRepo(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	githome.Git(t, dir, "init", "-q")
	githome.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
}

// requireFileIDs skips t where a file's device and inode are not known
// (Windows: stat_windows.go): there Discover leaves finding the repository
// to git, and the config cache is never kept.
func requireFileIDs(t *testing.T) {
	t.Helper()
	if fi, err := os.Stat("."); err == nil {
		if _, _, ok := fileIDs(fi); !ok {
			t.Skip("this system gives no file ids: Discover and the config cache are off")
		}
	}
}

// discovered is what Discover and Confirm say from dir, completed as the
// commands complete it, or nil.
func discovered(t *testing.T, dir string) *Repo {
	t.Helper()
	requireFileIDs(t)
	d := Discover(dir)
	if d == nil {
		return nil
	}
	r := &Runner{}
	out, err := r.Run(context.Background(), dir, ConfigListArgs...)
	if err != nil && ExitCode(err) != 1 {
		t.Fatal(err)
	}
	repo := d.Confirm(ParseConfigList(out))
	if repo == nil {
		return nil
	}
	repo, err = r.Complete(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestDiscoverAgreesWithRevParse(t *testing.T) {
	root := githome.New(t)
	main := filepath.Join(root, "repo")
	newRepo(t, main)
	linked := filepath.Join(root, "linked")
	githome.Git(t, main, "worktree", "add", "-q", "-b", "topic", linked)
	for _, dir := range []string{filepath.Join(main, "a", "b"), filepath.Join(linked, "c")} {
		os.MkdirAll(dir, 0o755)
	}
	dirs := []string{main, filepath.Join(main, "a", "b"), linked, filepath.Join(linked, "c")}
	if platform.Symlinks(t) {
		os.Symlink(filepath.Join(linked, "c"), filepath.Join(root, "link"))
		dirs = append(dirs, filepath.Join(root, "link"))
	}
	for _, dir := range dirs {
		got := discovered(t, dir)
		if got == nil {
			t.Errorf("%s: not discovered, in the usual layout", dir)
			continue
		}
		want, err := (&Runner{}).Locate(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if *got != *want {
			t.Errorf("%s:\ndiscovered %+v\n rev-parse %+v", dir, *got, *want)
		}
	}
}

func TestDiscoverLeavesUnusualLayoutsToRevParse(t *testing.T) {
	root := githome.New(t)
	outer := filepath.Join(root, "outer")
	newRepo(t, outer)
	inner := filepath.Join(outer, "inner")
	newRepo(t, inner)
	broken := filepath.Join(outer, "broken")
	os.MkdirAll(filepath.Join(broken, ".git"), 0o755) // not a git dir: git looks further up
	bare := filepath.Join(root, "bare.git")
	githome.Git(t, root, "init", "-q", "--bare", bare)
	moved := filepath.Join(root, "moved")
	newRepo(t, moved)
	githome.Git(t, moved, "config", "core.worktree", root)
	for name, dir := range map[string]string{
		"a repository inside another's worktree": inner,
		"a .git that is no git dir":              broken,
		"inside a git dir":                       filepath.Join(outer, ".git", "refs"),
		"a bare repository":                      bare,
		"core.worktree":                          moved,
	} {
		if got := discovered(t, dir); got != nil {
			t.Errorf("%s (%s): discovered %+v; only rev-parse may say", name, dir, *got)
		}
	}
	githome.Git(t, root, "config", "--global", "core.hooksPath", filepath.Join(root, "hooks"))
	if got := discovered(t, outer); got != nil {
		t.Errorf("a global core.hooksPath: discovered %+v", *got)
	}
	githome.Git(t, root, "config", "--global", "--unset", "core.hooksPath")
	t.Setenv("GIT_DIR", filepath.Join(outer, ".git"))
	if Discover(outer) != nil {
		t.Error("GIT_DIR set: discovered")
	}
}
