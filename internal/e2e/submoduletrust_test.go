//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// An untrusted .gitwt's wt.submodules true made new clone every
// repository .gitmodules names, local paths included, with git's
// protection of the file transport (CVE-2022-39253) turned off, and write
// their URLs into .git/config. Until trusted, only false applies.
func TestAnUntrustedGitwtClonesNoSubmodule(t *testing.T) {
	s := testutil.NewSandbox(t)
	secret := remoteRepo(t, s, "secret")
	addSubmodule(s, "secret", secret, "secret")
	// Not cloned in the main worktree: only its URL, a local path, is left.
	s.Git(s.Repo, "submodule", "deinit", "-q", "secret")
	if err := os.RemoveAll(filepath.Join(s.Repo, ".git", "modules", "secret")); err != nil {
		t.Fatal(err)
	}
	s.Write(".gitwt", "[wt]\n\tsubmodules = true\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "gitwt")
	before := submoduleConfig(s)

	r := s.WT("new", "T")
	if r.Code != 0 {
		t.Fatalf("new: %s", r)
	}
	if testutil.Exists(filepath.Join(r.Out(), "secret", "secret.txt")) {
		t.Error("an untrusted .gitwt's wt.submodules true cloned a submodule")
	}
	if !strings.Contains(r.Stderr, "wt.submodules") {
		t.Errorf("no warning says the .gitwt's wt.submodules was ignored:\n%s", r.Stderr)
	}
	// Trusted, true clones it from its URL, but as git would: a local
	// path's file transport is not forced open, so the clone is refused.
	s.MustWT("trust")
	s.WT("new", "U")
	noFileNamed(t, filepath.Join(filepath.Dir(s.Repo), "repo-worktrees"), "secret.txt", "a submodule was cloned from a local path with the file transport forced open")
	// The user's own (global) config may open it: then the clone is made.
	s.Git(s.Repo, "config", "--global", "protocol.file.allow", "always")
	if path := s.MustWT("new", "V").Out(); !testutil.Exists(filepath.Join(path, "secret", "secret.txt")) {
		t.Error("wt.submodules true and protocol.file.allow always: the submodule was not cloned from its URL")
	}
	if after := submoduleConfig(s); after != before {
		t.Errorf("new changed the submodules of .git/config:\n%s\nwas:\n%s", after, before)
	}
}
