//go:build unix

// These tests protect list --machine from the repositories it reads
// (SPEC §19, §20): a repository under an agent runner's folder is
// whoever made it's, its config included, and git-wt reading it must
// run nothing that config (or that of a repository nested in one of its
// worktrees) names.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// hostileClone makes a repository with one commit at dir, whose file
// f.txt is changed after the index was written with the same size (git
// status must read it again, through any clean filter).
func hostileClone(t *testing.T, s *testutil.Sandbox, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(dir), 0o755)
	s.Git(filepath.Dir(dir), "init", "-q", "-b", "main", filepath.Base(dir))
	s.Write(filepath.Join(dir, "f.txt"), "one\n")
	s.Git(dir, "add", ".")
	s.Git(dir, "commit", "-q", "-m", "one")
	s.Write(filepath.Join(dir, "f.txt"), "two\n")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "f.txt"), old, old)
}

func TestListMachineRunsNothingAnotherRepositoryNames(t *testing.T) {
	s := testutil.NewSandbox(t)
	marks := t.TempDir()
	mark := func(name string) string { return "touch " + filepath.Join(marks, name) + "; false" }
	runner := filepath.Join(s.Home, ".codex", "worktrees")

	// A clone whose config names an fsmonitor program, with a
	// repository nested in its worktree (git status looks into it, as
	// a submodule) whose config names one too: listed, neither run.
	monitored := filepath.Join(runner, "a1", "monitored")
	hostileClone(t, s, monitored)
	nested := filepath.Join(monitored, "nested")
	hostileClone(t, s, nested)
	s.Git(monitored, "add", "nested")
	s.Git(monitored, "config", "core.fsmonitor", mark("fsmonitor"))
	s.Git(nested, "config", "core.fsmonitor", mark("nested-fsmonitor"))
	// A clean filter in the nested repository's config, which no
	// setting of the outer git's reaches.
	s.Git(nested, "config", "filter.y.clean", mark("nested-filter"))
	s.Write(filepath.Join(nested, ".gitattributes"), "*.txt filter=y\n")

	// A clone whose config names a clean filter that its files use: git
	// status would run it, and no setting turns a driver of any name
	// off: skipped.
	filtered := filepath.Join(runner, "b2", "filtered")
	hostileClone(t, s, filtered)
	s.Git(filtered, "config", "filter.x.clean", mark("filter"))
	s.Write(filepath.Join(filtered, ".gitattributes"), "*.txt filter=x\n")

	report := listMachine(t, s)
	entries, _ := os.ReadDir(marks)
	for _, e := range entries {
		t.Errorf("list --machine ran a program another repository's config names: %s", e.Name())
	}
	listed := map[string]bool{}
	for _, r := range report.Repositories {
		listed[r.CommonDir] = true
	}
	if !listed[realPath(t, filepath.Join(monitored, ".git"))] {
		t.Errorf("the repository whose fsmonitor is turned off is not listed: %+v", report)
	}
	skipped := false
	for _, sk := range report.Skipped {
		if sk.Path == realPath(t, filepath.Join(filtered, ".git")) && strings.Contains(sk.Reason, "filter.x.clean") {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("the repository with a filter driver is not skipped naming it: %+v", report.Skipped)
	}
}

// A registry that is a fifo or a link (planted, or a user's mistake)
// neither holds every command (opening a fifo waits for a writer) nor
// gets a line appended to the file a link points at.
func TestARegistryThatIsNoFileHoldsNothingAndReceivesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	registry := filepath.Join(s.Home, ".local", "state", "git-wt", "repos")
	os.MkdirAll(filepath.Dir(registry), 0o700)
	if err := syscall.Mkfifo(registry, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"path", "--main"}, {"list", "--machine", "--json"}} {
		cmd := s.Cmd(s.Repo, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("git wt %s still waits on a registry that is a fifo", strings.Join(args, " "))
		}
	}

	os.Remove(registry)
	profile := filepath.Join(s.Home, ".profile")
	s.Write(profile, "# the user's\n")
	if err := os.Symlink(profile, registry); err != nil {
		t.Fatal(err)
	}
	s.MustWT("path", "--main")
	if data, _ := os.ReadFile(profile); string(data) != "# the user's\n" {
		t.Errorf("a registry that is a link got a line appended to the file it points at: %q", data)
	}
}
