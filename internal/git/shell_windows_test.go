// These tests protect how git-wt finds Git for Windows' sh.exe on
// Windows itself: from git's exec path, in a laid-out install, once per
// runner, and a clear error when the install has none.
package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/git/gittest"
)

// gitInstall lays out a Git for Windows root with the given files and
// returns it (removed at the test's end as far as Wine allows).
func gitInstall(t *testing.T, files ...string) string {
	t.Helper()
	root, err := os.MkdirTemp("", "Git-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for _, f := range append(files, "mingw64/libexec/git-core/git-add.exe") {
		path := filepath.Join(root, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(path), 0o777)
		if err := os.WriteFile(path, nil, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestShellIsGitForWindowsShFoundOnce(t *testing.T) {
	root := gitInstall(t, "usr/bin/sh.exe")
	f := gittest.New(t)
	f.Expect("--exec-path").Out(filepath.ToSlash(root) + "/mingw64/libexec/git-core\n")
	g := f.Git()
	for range 2 { // the second call asks git nothing (the fake allows one call)
		sh, err := g.Shell(t.Context(), root)
		if err != nil || !strings.EqualFold(filepath.Clean(sh), filepath.Join(root, "usr", "bin", "sh.exe")) {
			t.Fatalf("Shell = %q, %v; want %s", sh, err, filepath.Join(root, "usr", "bin", "sh.exe"))
		}
	}
}

func TestShellWithoutShExeSaysWhereItLooked(t *testing.T) {
	root := gitInstall(t)
	f := gittest.New(t)
	f.Expect("--exec-path").Out(filepath.ToSlash(root) + "/mingw64/libexec/git-core\n")
	_, err := f.Git().Shell(t.Context(), root)
	if err == nil || !strings.Contains(err.Error(), filepath.ToSlash(root)+"/usr/bin/sh.exe") {
		t.Fatalf("Shell in an install without sh.exe: %v", err)
	}
}
