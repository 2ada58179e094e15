//go:build unix

// These tests protect other repositories from a submodule's path in
// .gitmodules (SPEC §19): git-wt sets up a submodule only at a gitlink of
// the task's tree, through no symlink, and runs git only in the
// submodule's own git dir, never in whatever repository git finds at the
// path (another one, through a committed symlink; the main repository,
// for ".").
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// originOf is the remote.origin.url of the repository whose config file
// is config.
func originOf(s *testutil.Sandbox, config string) string {
	s.T.Helper()
	return s.Git(s.Home, "config", "--file", config, "remote.origin.url")
}

// victimRepo makes a repository outside the sandbox's repository, with
// an origin of its own, and returns its path.
func victimRepo(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	victim := remoteRepo(t, s, "victim")
	s.Git(victim, "remote", "add", "origin", "https://good.example/victim.git")
	return victim
}

// setModulePath commits, on a new branch from main, .gitmodules with
// submodule.<name>.path set to path (in the repository at repo), and
// goes back to main.
func setModulePath(s *testutil.Sandbox, repo, branch, name, path string) {
	s.T.Helper()
	s.Git(repo, "checkout", "-q", "-b", branch)
	s.Git(repo, "config", "--file", ".gitmodules", "submodule."+name+".path", path)
	s.Git(repo, "add", "-A")
	s.Git(repo, "commit", "-q", "-m", "path "+path)
	s.Git(repo, "checkout", "-q", "main")
}

// The main worktree has the submodule lib; branch evil commits a symlink
// evil to another repository and sets lib's path to it: new set that
// repository's origin to lib's URL (git config run in the path, which
// found the repository the link leads to). The submodule is skipped with
// a warning naming it; the other repository is as it was.
func TestASubmodulePathThatIsACommittedSymlinkWritesNoOtherRepository(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := remoteRepo(t, s, "lib")
	addSubmodule(s, "lib", lib, "lib")
	victim := victimRepo(t, s)
	s.Git(s.Repo, "checkout", "-q", "-b", "evil")
	if err := os.Symlink(victim, filepath.Join(s.Repo, "evil")); err != nil {
		t.Fatal(err)
	}
	s.Git(s.Repo, "config", "--file", ".gitmodules", "submodule.lib.path", "evil")
	s.Git(s.Repo, "add", "-A")
	s.Git(s.Repo, "commit", "-q", "-m", "lib's path a link to another repository")
	s.Git(s.Repo, "checkout", "-q", "main")

	r := s.WT("new", "t1", "--base", "evil")
	if r.Code != 0 {
		t.Fatalf("new with a submodule path that is a symlink: %s", r)
	}
	if got := originOf(s, filepath.Join(victim, ".git", "config")); got != "https://good.example/victim.git" {
		t.Errorf("the other repository's origin is now %q", got)
	}
	if !strings.Contains(r.Stderr, `"lib"`) {
		t.Errorf("no warning names the skipped submodule:\n%s", r.Stderr)
	}
}

// lib's path set to "." in branch evil2: new set the main repository's
// own origin (the config every worktree shares) to lib's URL.
func TestASubmodulePathDotLeavesTheMainRepositorysOrigin(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := remoteRepo(t, s, "lib")
	addSubmodule(s, "lib", lib, "lib")
	s.Git(s.Repo, "remote", "add", "origin", "https://good.example/repo.git")
	setModulePath(s, s.Repo, "evil2", "lib", ".")

	r := s.WT("new", "t2", "--base", "evil2")
	if r.Code != 0 {
		t.Fatalf("new with a submodule path of .: %s", r)
	}
	if got := originOf(s, filepath.Join(s.Repo, ".git", "config")); got != "https://good.example/repo.git" {
		t.Errorf("the main repository's origin is now %q", got)
	}
	if !strings.Contains(r.Stderr, `"lib"`) {
		t.Errorf("no warning names the skipped submodule:\n%s", r.Stderr)
	}
}

// The same one level down, once the agent has committed it in its task:
// lib's own submodule deep gets the path of a symlink to another
// repository, which lib commits, and the task records that commit of
// lib. git wt init set that repository's origin to deep's URL (the URL
// the first setup wrote into lib's config).
func TestANestedSubmodulePathThatIsASymlinkWritesNoOtherRepository(t *testing.T) {
	s := testutil.NewSandbox(t)
	submoduleRepos(t, s)
	victim := victimRepo(t, s)
	path := s.MustWT("new", "T").Out()
	lib := filepath.Join(path, "lib")
	if err := os.Symlink(victim, filepath.Join(lib, "evil")); err != nil {
		t.Fatal(err)
	}
	s.Git(lib, "config", "--file", ".gitmodules", "submodule.deep.path", "evil")
	s.Git(lib, "add", "-A")
	s.Git(lib, "commit", "-q", "-m", "deep's path a link to another repository")
	s.Git(path, "commit", "-q", "-am", "lib with the link")

	r := s.WT("init", "T")
	if r.Code != 0 {
		t.Fatalf("init with a nested submodule path that is a symlink: %s", r)
	}
	if got := originOf(s, filepath.Join(victim, ".git", "config")); got != "https://good.example/victim.git" {
		t.Errorf("the other repository's origin is now %q", got)
	}
	if !strings.Contains(r.Stderr, `"deep"`) {
		t.Errorf("no warning names the skipped submodule:\n%s", r.Stderr)
	}
}
