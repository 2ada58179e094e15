//go:build unix

// These tests protect git-wt from the config files an agent can write in
// the git dir (SPEC §19): a worktree's config.worktree (read by every git
// once extensions.worktreeConfig is on, as a sparse task turns it on), a
// submodule's config in a task's admin entry (read by git status), and a
// commondir file in the main git dir (which sends every git elsewhere).
// Each is refused before git-wt runs git, with one line that names the
// file and the key, and nothing it holds runs.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// refusedUnsafe fails the test unless r is one line of exit 3 naming file
// (and key, when not empty), and the mark was never made.
func refusedUnsafe(t *testing.T, r testutil.Result, file, key, mark string) {
	t.Helper()
	if testutil.Exists(mark) {
		t.Errorf("%s exists: a command from %s ran", mark, file)
	}
	line := strings.TrimRight(r.Stderr, "\n")
	if r.Code != 3 || strings.Contains(line, "\n") || !strings.Contains(line, file) || !strings.Contains(line, key) {
		t.Errorf("want one line of exit 3 naming %s and %q: %s", file, key, r)
	}
}

func TestAWorktreeConfigAnAgentWroteRunsNothing(t *testing.T) {
	s, _ := sparseRepo(t)
	path := s.MustWT("new", "sp", "--sparse", "a").Out()
	s.MustWT("list") // git's own sparse settings are fine
	mark := filepath.Join(t.TempDir(), "PWN")

	entry := filepath.Join(s.Repo, ".git", "worktrees", "sp", "config.worktree")
	s.Write(entry, "[core]\n\tfsmonitor = \"touch "+mark+"; false\"\n")
	refusedUnsafe(t, s.WT("list"), entry, "core.fsmonitor", mark)
	if !testutil.Exists(path) {
		t.Error("the task's worktree is gone")
	}
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}

	hooks := filepath.Join(t.TempDir(), "hooks")
	s.Write(filepath.Join(hooks, "post-checkout"), "#!/bin/sh\ntouch "+mark+"\n")
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(s.Repo, ".git", "config.worktree")
	s.Write(main, "[core]\n\thooksPath = "+hooks+"\n")
	refusedUnsafe(t, s.WT("new", "t3"), main, "core.hookspath", mark)
	if testutil.Exists(filepath.Join(filepath.Dir(path), "t3")) {
		t.Error("new made a worktree")
	}
}

func TestASubmoduleConfigInATasksEntryRunsNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	addSubmodule(s, "lib", remoteRepo(t, s, "lib"), "lib")
	path := s.MustWT("new", "T").Out()
	mark := filepath.Join(t.TempDir(), "PWN")
	config := filepath.Join(s.Repo, ".git", "worktrees", "T", "modules", "lib", "config")
	s.Git(s.Repo, "config", "-f", config, "core.fsmonitor", "touch "+mark+"; false")
	refusedUnsafe(t, s.WT("list"), config, "core.fsmonitor", mark)
	refusedUnsafe(t, s.WT("rm", "T"), config, "core.fsmonitor", mark)
	if !testutil.Exists(path) {
		t.Error("the task's worktree is gone")
	}
}

func TestACommondirInTheMainGitDirIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	fake := filepath.Join(t.TempDir(), "fake")
	if out, err := exec.Command("cp", "-r", filepath.Join(s.Repo, ".git"), fake).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	mark := filepath.Join(t.TempDir(), "PWN")
	s.Git(s.Repo, "--git-dir="+fake, "config", "core.fsmonitor", "touch "+mark+"; false")
	commondir := filepath.Join(s.Repo, ".git", "commondir")
	s.Write(commondir, fake+"\n")
	refusedUnsafe(t, s.WT("new", "b"), commondir, "", mark)
	refusedUnsafe(t, s.WT("list"), commondir, "", mark)
}
