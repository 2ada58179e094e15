//go:build unix

// These tests protect a task's submodules (SPEC §17): a new task gets the
// ones the main worktree initialised, recursively, from the main
// worktree's module repositories (no network, objects shared), and rm
// never deletes submodule work that exists nowhere else.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// submoduleRepos gives the sandbox's repository three submodules, their
// remotes under remotes/: lib (a file:// URL) holding deep (a plain path),
// tool (a plain path), both initialised in the main worktree, and other,
// not initialised there. It returns the remotes' folder.
func submoduleRepos(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	remotes := filepath.Join(s.Home, "remotes")
	mk := func(name string) string {
		dir := filepath.Join(remotes, name)
		s.Git(remotes, "init", "-q", "-b", "main", dir)
		s.Write(filepath.Join(dir, name+".txt"), name+"\n")
		s.Git(dir, "add", ".")
		s.Git(dir, "commit", "-q", "-m", name)
		return dir
	}
	os.MkdirAll(remotes, 0o755)
	deep, lib, tool, other := mk("deep"), mk("lib"), mk("tool"), mk("other")
	s.Git(lib, "-c", "protocol.file.allow=always", "submodule", "add", "-q", deep, "deep")
	s.Git(lib, "commit", "-q", "-m", "deep")
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "file://"+lib, "lib")
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", tool, "tool")
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", other, "other")
	s.Git(s.Repo, "commit", "-q", "-m", "submodules")
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")
	s.Git(s.Repo, "submodule", "deinit", "-q", "other")
	return remotes
}

func TestNewGivesTheMainWorktreesSubmodulesOffline(t *testing.T) {
	s := testutil.NewSandbox(t)
	remotes := submoduleRepos(t, s)
	// No network, no remote: every submodule's URL now leads nowhere.
	if err := os.Rename(remotes, remotes+".gone"); err != nil {
		t.Fatal(err)
	}
	path := s.MustWT("new", "T").Out()
	st := s.Git(path, "submodule", "status", "--recursive")
	want := map[string]byte{"lib": ' ', "lib/deep": ' ', "tool": ' ', "other": '-'}
	for _, line := range strings.Split(st, "\n") {
		f := strings.Fields(line)
		c := byte(' ')
		if line[0] == '-' || line[0] == '+' || line[0] == 'U' {
			c = line[0]
		}
		if w, ok := want[f[1]]; !ok || w != c {
			t.Errorf("submodule status in the task: %q (want %q for %s)", line, w, f[1])
		}
		delete(want, f[1])
	}
	if len(want) > 0 {
		t.Errorf("submodules missing from the task's status: %v\n%s", want, st)
	}
	if got := s.Git(path, "submodule", "status", "--recursive"); got != s.Git(s.Repo, "submodule", "status", "--recursive") {
		t.Errorf("the task's submodules are not at the main worktree's commits:\n%s\nmain:\n%s", got, s.Git(s.Repo, "submodule", "status", "--recursive"))
	}
	for _, f := range []string{"lib/lib.txt", "lib/deep/deep.txt", "tool/tool.txt"} {
		if !testutil.Exists(filepath.Join(path, f)) {
			t.Errorf("%s is not checked out in the task", f)
		}
	}
	if testutil.Exists(filepath.Join(path, "other", "other.txt")) {
		t.Error("other, not initialised in the main worktree, was checked out in the task")
	}
	// The URLs are as the main worktree's.
	lib := filepath.Join(path, "lib")
	if got := s.Git(lib, "remote", "get-url", "origin"); got != "file://"+filepath.Join(remotes, "lib") {
		t.Errorf("lib's origin in the task: %s", got)
	}
	if got := s.Git(filepath.Join(path, "tool"), "remote", "get-url", "origin"); got != filepath.Join(remotes, "tool") {
		t.Errorf("tool's origin in the task: %s", got)
	}
	// The task's module store borrows the main's objects: git's local
	// clone hard-links them (the same files, not copies), and no
	// alternates file ties the task's store to the main's.
	mainObjs := s.Git(filepath.Join(s.Repo, "lib"), "rev-parse", "--path-format=absolute", "--git-path", "objects")
	taskObjs := s.Git(lib, "rev-parse", "--path-format=absolute", "--git-path", "objects")
	if mainObjs == taskObjs {
		t.Fatalf("the task's lib uses the main's module repository %s itself", mainObjs)
	}
	packs, _ := filepath.Glob(filepath.Join(taskObjs, "pack", "*.pack"))
	linked := 0
	for _, p := range packs {
		a, errA := os.Stat(p)
		b, errB := os.Stat(filepath.Join(mainObjs, "pack", filepath.Base(p)))
		if errA == nil && errB == nil && os.SameFile(a, b) {
			linked++
		}
	}
	if len(packs) == 0 || linked != len(packs) {
		t.Errorf("%d of the %d packs of lib's module repository in the task are hard links of the main's", linked, len(packs))
	}
	if testutil.Exists(filepath.Join(taskObjs, "info", "alternates")) {
		t.Error("the task's lib borrows through an alternates file")
	}
	if r := s.WT("rm", "T"); r.Code != 0 {
		t.Fatalf("rm of a clean task with submodules: %s", r)
	}
	gone(t, s, "T", path)
}

func TestRmKeepsATaskWithSubmoduleWork(t *testing.T) {
	s := testutil.NewSandbox(t)
	submoduleRepos(t, s)
	path := s.MustWT("new", "T").Out()
	lib := filepath.Join(path, "lib")

	s.Write(filepath.Join(lib, "lib.txt"), "changed\n")
	if r := s.WT("rm", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "uncommitted") {
		t.Fatalf("rm of a task with a dirty submodule: %s", r)
	}
	commitFile(s, s.Repo, "later.txt", "x", "the base moves on")
	if outcomes, _ := syncJSON(t, s, 3, "T"); outcomes["T"] != "skipped_dirty" {
		t.Fatalf("sync of a task with a dirty submodule: %v", outcomes)
	}
	// Committed in the submodule and in the task: the commit exists only
	// in the task's module repository.
	s.Git(lib, "commit", "-q", "-am", "lib work")
	s.Git(path, "commit", "-q", "-am", "bump lib")
	r := s.WT("rm", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "hold 1 commit that exists nowhere else") {
		t.Fatalf("rm of a task whose submodule holds its own commit: %s", r)
	}
	if !testutil.Exists(filepath.Join(lib, "lib.txt")) {
		t.Fatal("a refused rm changed the submodule")
	}
	// Fetched into the main worktree's submodule: no longer only there.
	s.Git(filepath.Join(s.Repo, "lib"), "fetch", "-q", lib, "HEAD:refs/heads/from-task")
	if r := s.WT("rm", "T"); r.Code != 0 {
		t.Fatalf("rm once the submodule's commit is in the main's: %s", r)
	}
}

func TestAPoolClaimGetsItsSubmodulesAfterTheMove(t *testing.T) {
	s := poolSandbox(t, "1")
	submoduleRepos(t, s)
	s.MustWT("pool", "--fill")
	path := s.MustWT("new", "T").Out()
	if fromEntry(path) == "" {
		t.Fatal("the task was not made from the pool entry")
	}
	for _, f := range []string{"lib/lib.txt", "lib/deep/deep.txt", "tool/tool.txt"} {
		if !testutil.Exists(filepath.Join(path, f)) {
			t.Errorf("%s is not checked out in the task made from the pool", f)
		}
	}
	clean(t, s, path)
}

// wt.submodules false gives a task none; true also the one the main
// worktree lacks, from its URL.
func TestSubmodulesSetting(t *testing.T) {
	s := testutil.NewSandbox(t)
	submoduleRepos(t, s)
	s.Git(s.Repo, "config", "wt.submodules", "false")
	path := s.MustWT("new", "none").Out()
	if testutil.Exists(filepath.Join(path, "lib", "lib.txt")) {
		t.Error("wt.submodules false, yet lib was checked out")
	}
	s.Git(s.Repo, "config", "wt.submodules", "true")
	path = s.MustWT("new", "all").Out()
	for _, f := range []string{"lib/lib.txt", "lib/deep/deep.txt", "tool/tool.txt", "other/other.txt"} {
		if !testutil.Exists(filepath.Join(path, f)) {
			t.Errorf("wt.submodules true: %s is not checked out", f)
		}
	}
	s.Git(s.Repo, "config", "wt.submodules", "sometimes")
	if r := s.WT("new", "bad"); r.Code != 1 || !strings.Contains(r.Stderr, "bad config wt.submodules") { // as every bad value
		t.Errorf("a bad wt.submodules: %s", r)
	}
}
