//go:build unix

// These tests protect git-wt from what a commit's .gitmodules and .gitwt
// say about submodules (SPEC §19, §14): a submodule name is data, never
// part of a git config key; the file transport is opened only to the main
// worktree's own module repositories; an untrusted .gitwt cannot make new
// clone anything; and new writes nothing into .git/config.
package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// remoteRepo makes a repository under the sandbox's remotes/ folder with
// one commit holding <name>.txt, and returns its path.
func remoteRepo(t *testing.T, s *testutil.Sandbox, name string) string {
	t.Helper()
	dir := filepath.Join(s.Home, "remotes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.Git(dir, "init", "-q", "-b", "main")
	s.Write(filepath.Join(dir, name+".txt"), name+"\n")
	s.Git(dir, "add", ".")
	s.Git(dir, "commit", "-q", "-m", name)
	return dir
}

// addSubmodule adds the repository at url as the submodule called name at
// path, cloned in the main worktree (its module repository in
// .git/modules/<name>), and commits it.
func addSubmodule(s *testutil.Sandbox, name, url, path string) {
	s.T.Helper()
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "--name", name, url, path)
	s.Git(s.Repo, "commit", "-q", "-m", "submodule "+path)
}

// appendGitmodules commits an entry written by hand into .gitmodules:
// git submodule add refuses the names a hostile commit can hold.
func appendGitmodules(s *testutil.Sandbox, entry string) {
	s.T.Helper()
	data, _ := os.ReadFile(filepath.Join(s.Repo, ".gitmodules"))
	s.Write(".gitmodules", string(data)+entry)
	s.Git(s.Repo, "add", ".gitmodules")
	s.Git(s.Repo, "commit", "-q", "-m", "more submodules")
}

// noFileNamed fails the test, saying why that is wrong, if a file called
// name exists anywhere under root.
func noFileNamed(t *testing.T, root, name, why string) {
	t.Helper()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			t.Errorf("%s exists: %s", path, why)
		}
		return nil
	})
}

// submoduleConfig is what the repository's shared config says about
// submodules (git config exits 1 when it says nothing).
func submoduleConfig(s *testutil.Sandbox) string {
	s.T.Helper()
	cmd := exec.Command("git", "config", "--file", filepath.Join(s.Repo, ".git", "config"), "--get-regexp", `^submodule\.`)
	cmd.Env = s.Env
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		s.T.Fatalf("git config: %v", err)
	}
	return string(out)
}

// A submodule named `lib.update=!touch PWNED #` was split by git's -c
// into submodule.lib.update, the command git ran for the submodule lib in
// new's submodule update. The name is refused with a warning that names
// it; the task is made, the other submodules with it.
func TestAHostileSubmoduleNameRunsNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := remoteRepo(t, s, "lib")
	const hostile = "lib.update=!touch PWNED #"
	addSubmodule(s, hostile, lib, "a")
	addSubmodule(s, "lib", lib, "lib")
	before := submoduleConfig(s)

	r := s.WT("new", "T")
	if r.Code != 0 {
		t.Fatalf("new with a hostile submodule name: %s", r)
	}
	noFileNamed(t, filepath.Dir(s.Repo), "PWNED", "a command from .gitmodules ran")
	if !strings.Contains(r.Stderr, `"`+hostile+`"`) {
		t.Errorf("no warning names the refused submodule %q:\n%s", hostile, r.Stderr)
	}
	path := r.Out()
	if testutil.Exists(filepath.Join(path, "a", "lib.txt")) {
		t.Error("the submodule with the refused name was checked out")
	}
	if !testutil.Exists(filepath.Join(path, "lib", "lib.txt")) {
		t.Error("the submodule beside the refused one was not checked out")
	}
	if after := submoduleConfig(s); after != before {
		t.Errorf("new changed the submodules of .git/config:\n%s\nwas:\n%s", after, before)
	}
}

// A name with a `..` component would take the module repository to clone
// from out of .git/modules: `../../evil` is the main worktree's own
// (committed) folder evil. Names with control characters would reach the
// terminal and git's config keys. Each is refused, quoted, and the task
// made without it.
func TestSubmoduleNamesGitRefusesAreSkipped(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := remoteRepo(t, s, "lib")
	addSubmodule(s, "lib", lib, "lib")
	// A repository committed in the tree where ../../evil leads.
	s.Git(s.Repo, "clone", "-q", "--bare", lib, "evil")
	s.Git(s.Repo, "add", "evil")
	s.Git(s.Repo, "commit", "-q", "-m", "a repository in the tree")
	libCommit := s.Git(lib, "rev-parse", "HEAD")
	for _, path := range []string{"up", "esc"} {
		s.Git(s.Repo, "update-index", "--add", "--cacheinfo", "160000,"+libCommit+","+path)
	}
	appendGitmodules(s, "[submodule \"../../evil\"]\n\tpath = up\n\turl = ./evil\n"+
		"[submodule \"e\x1b[2Jx\"]\n\tpath = esc\n\turl = ./evil\n")
	s.Git(s.Repo, "config", "wt.submodules", "true")

	r := s.WT("new", "T")
	if r.Code != 0 {
		t.Fatalf("new with refused submodule names: %s", r)
	}
	for _, name := range []string{`"../../evil"`, `"e\x1b[2Jx"`} {
		if !strings.Contains(r.Stderr, name) {
			t.Errorf("no warning names the refused submodule %s:\n%s", name, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "\x1b") {
		t.Errorf("a submodule name reached the terminal unquoted: %q", r.Stderr)
	}
	path := r.Out()
	for _, sub := range []string{"up", "esc"} {
		if testutil.Exists(filepath.Join(path, sub, "lib.txt")) {
			t.Errorf("the submodule at %s, whose name is refused, was checked out", sub)
		}
	}
	if !testutil.Exists(filepath.Join(path, "lib", "lib.txt")) {
		t.Error("lib was not checked out beside the refused submodules")
	}
}

// wt.submodules true gives a task a submodule the main worktree has
// deinitialised from the main's module repository, without writing it
// into the config the main worktree and every task share.
func TestNewWritesNoSubmoduleIntoGitConfig(t *testing.T) {
	s := testutil.NewSandbox(t)
	submoduleRepos(t, s)
	s.Git(s.Repo, "config", "wt.submodules", "true")
	before := submoduleConfig(s)
	path := s.MustWT("new", "T").Out()
	if !testutil.Exists(filepath.Join(path, "other", "other.txt")) {
		t.Error("wt.submodules true: other is not checked out")
	}
	if after := submoduleConfig(s); after != before {
		t.Errorf("new changed the submodules of .git/config:\n%s\nwas:\n%s", after, before)
	}
}

// A name with a line break cannot be written in a config file git reads
// (git stops at the line): a .gitmodules that holds one is unreadable,
// for git as for git-wt. The task is made without submodules, with a
// warning that says why.
func TestAGitmodulesGitCannotReadGivesNoSubmodules(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := remoteRepo(t, s, "lib")
	addSubmodule(s, "lib", lib, "lib")
	appendGitmodules(s, "[submodule \"a\\\nb\"]\n\tpath = nl\n\turl = ../x\n")

	r := s.WT("new", "T")
	if r.Code != 0 {
		t.Fatalf("new with an unreadable .gitmodules: %s", r)
	}
	if !strings.Contains(r.Stderr, "no submodules in") || !strings.Contains(r.Stderr, "bad config line") {
		t.Errorf("no warning says why the task has no submodules:\n%s", r.Stderr)
	}
	if got := s.MustWT("show", "--json", "T").Out(); !strings.Contains(got, `"state": "active"`) && !strings.Contains(got, `"state":"active"`) {
		t.Errorf("the task is not active: %s", got)
	}
}
