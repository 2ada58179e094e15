//go:build unix

// These tests protect the files outside a task's worktree from the
// symlinks its branch commits (SPEC §19): wt.copy and wt.symlink write
// inside the worktree only, never through a link on the way.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// evilBranch commits, on a new branch evil from main, a symlink at rel to
// target in place of whatever rel was, and goes back to main.
func evilBranch(s *testutil.Sandbox, rel, target string) {
	s.T.Helper()
	s.Git(s.Repo, "checkout", "-q", "-b", "evil")
	if err := os.RemoveAll(filepath.Join(s.Repo, rel)); err != nil {
		s.T.Fatal(err)
	}
	s.Git(s.Repo, "add", "-A", "--", rel)
	if err := os.Symlink(target, filepath.Join(s.Repo, rel)); err != nil {
		s.T.Fatal(err)
	}
	s.Git(s.Repo, "add", "--", rel)
	s.Git(s.Repo, "commit", "-q", "-m", "evil")
	s.Git(s.Repo, "checkout", "-q", "main")
}

// emptyFolder fails the test, saying why, unless dir holds nothing.
func emptyFolder(t *testing.T, dir, why string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%s holds %v: %s", dir, entries, why)
	}
}

// The main worktree's conf/local.env is ignored and in wt.copy; branch
// evil commits conf as a symlink to a folder outside. The secret was
// copied out there. Now the copy is skipped with a warning naming the
// link, the task is made, and the other files are copied still.
func TestWtCopyThroughACommittedSymlinkWritesNothingOutside(t *testing.T) {
	s := testutil.NewSandbox(t)
	outside := t.TempDir()
	s.Write(".gitignore", "conf/local.env\n.env\n")
	s.Write("conf/tracked", "x\n")
	s.Git(s.Repo, "add", "-A")
	s.Git(s.Repo, "commit", "-q", "-m", "conf")
	evilBranch(s, "conf", outside)
	s.Write("conf/local.env", "SECRET=1\n")
	s.Write(".env", "A=1\n")
	s.Git(s.Repo, "config", "wt.copy", "conf/local.env")
	s.Git(s.Repo, "config", "--add", "wt.copy", ".env")

	r := s.WT("new", "e", "--base", "evil")
	if r.Code != 0 {
		t.Fatalf("new from a branch with a symlinked folder: %s", r)
	}
	emptyFolder(t, outside, "wt.copy wrote through the committed symlink")
	if !strings.Contains(r.Stderr, "conf") || !strings.Contains(r.Stderr, "symlink") {
		t.Errorf("no warning names the symlink that stopped the copy:\n%s", r.Stderr)
	}
	if data, err := os.ReadFile(filepath.Join(r.Out(), ".env")); err != nil || string(data) != "A=1\n" {
		t.Errorf("the file beside the skipped one was not copied: %q, %v", data, err)
	}
}

// wt.symlink web/node_modules, and branch evil commits web as a symlink
// to a folder outside: the link was made out there. Now it is skipped
// with a warning naming the link, and the task is made.
func TestWtSymlinkThroughACommittedSymlinkLinksNothingOutside(t *testing.T) {
	s := testutil.NewSandbox(t)
	outside := t.TempDir()
	s.Write(".gitignore", "node_modules/\n")
	s.Write("web/a", "x\n")
	s.Git(s.Repo, "add", "-A")
	s.Git(s.Repo, "commit", "-q", "-m", "web")
	s.Git(s.Repo, "config", "wt.symlink", "web/node_modules")
	evilBranch(s, "web", outside)
	s.Write("web/node_modules/dep/index.js", "x\n")

	r := s.WT("new", "e", "--base", "evil")
	if r.Code != 0 {
		t.Fatalf("new from a branch with a symlinked folder: %s", r)
	}
	emptyFolder(t, outside, "wt.symlink linked through the committed symlink")
	if !strings.Contains(r.Stderr, "web") || !strings.Contains(r.Stderr, "symlink") {
		t.Errorf("no warning names the symlink that stopped the link:\n%s", r.Stderr)
	}
}

// The agent at work in its task swaps a folder on wt.envFile's path for
// a symlink out of the worktree while git wt init writes the file: the
// file was written where the link points. Nothing is written outside.
func TestEnvFileWriteFollowsNoFolderSwappedForASymlink(t *testing.T) {
	s := testutil.NewSandbox(t)
	outside := t.TempDir()
	path := s.MustWT("new", "T").Out()
	s.Git(s.Repo, "config", "wt.envFile", "conf/.env")
	cmd, release := stopAtUntil(t, s, "envfile:folders", "init", "T")
	conf := filepath.Join(path, "conf")
	if err := os.RemoveAll(conf); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, conf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(release, nil, 0o644)
	cmd.Wait()
	emptyFolder(t, outside, "wt.envFile was written through the swapped folder")
}
