//go:build unix

// These tests protect removal that ends what a task started (SPEC §17):
// wt.preRemove runs before any removal and keeps the task when it fails,
// never from an untrusted .gitwt; rm --reap ends the processes working in
// the worktree, never when it cannot see them, and never forces.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestPreRemoveRunsInTheWorktreeBeforeRm(t *testing.T) {
	s := testutil.NewSandbox(t)
	out := filepath.Join(s.Home, "down.log")
	s.Git(s.Repo, "config", "wt.preRemove", `echo "$PWD $WT_TASK $COMPOSE_PROJECT_NAME" >> `+out)
	path := s.MustWT("new", "web").Out()
	if r := s.WT("rm", "web"); r.Code != 0 {
		t.Fatalf("rm: %s", r)
	}
	gone(t, s, "web", path)
	data, _ := os.ReadFile(out)
	if got := strings.TrimSpace(string(data)); !strings.HasPrefix(got, path+" web repo-web-") {
		t.Errorf("wt.preRemove ran as %q, want in the worktree with its environment", got)
	}
}

func TestAFailedPreRemoveKeepsTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.preRemove", "echo stopping; exit 7")
	path := s.MustWT("new", "T").Out()
	r := s.WT("rm", "--json", "T")
	var doc []struct {
		WorktreeOutcome string `json:"worktree_outcome"`
		Error           struct{ Kind string }
	}
	if r.Code != 3 || json.Unmarshal([]byte(r.Stdout), &doc) != nil || len(doc) != 1 || doc[0].WorktreeOutcome != "kept_pre_remove" {
		t.Fatalf("rm with a failing wt.preRemove: %s", r)
	}
	if !testutil.Exists(path) || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatal("a failed wt.preRemove lost the task")
	}
	if r := s.WT("rm", "--force", "T"); r.Code != 0 || !strings.Contains(r.Stderr, "anyway") {
		t.Fatalf("rm --force past a failing wt.preRemove: %s", r)
	}
	gone(t, s, "T", path)
}

func TestAnUntrustedPreRemoveNeverRuns(t *testing.T) {
	s := testutil.NewSandbox(t)
	marker := filepath.Join(s.Home, "ran")
	s.Write(".gitwt", "[wt]\n\tpreRemove = touch "+marker+"\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "gitwt")
	path := s.MustWT("new", "T").Out()
	r := s.WT("rm", "T")
	if r.Code != 0 || !strings.Contains(r.Stderr, "not trusted") {
		t.Fatalf("rm with an untrusted wt.preRemove: %s", r)
	}
	if testutil.Exists(marker) {
		t.Fatal("the untrusted .gitwt's wt.preRemove ran")
	}
	gone(t, s, "T", path)
	s.MustWT("trust")
	s.MustWT("new", "U")
	s.MustWT("rm", "U")
	if !testutil.Exists(marker) {
		t.Fatal("the trusted .gitwt's wt.preRemove did not run")
	}
}

func TestRmReapEndsTheProcessesInTheWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	plain := startIn(t, path, "sleep", "300")
	stubborn := startIn(t, filepath.Join(path), "sh", "-c", `trap "" TERM; sleep 300 & wait`)
	if r := s.WT("rm", "T"); r.Code != 3 {
		t.Fatalf("rm of a task in use: %s", r)
	}
	r := s.WT("rm", "--reap", "--json", "T")
	if r.Code != 0 {
		t.Fatalf("rm --reap: %s", r)
	}
	gone(t, s, "T", path)
	var doc []struct {
		Reaped []struct{ PID int } `json:"reaped"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc) != 1 || len(doc[0].Reaped) != 3 {
		t.Errorf("rm --reap --json: want the three processes it ended: %s", r)
	}
	for _, c := range []interface{ Wait() error }{plain, stubborn} {
		c.Wait() // each has ended: Wait returns (the test would time out)
	}
	if st := stubborn.ProcessState; st == nil || !strings.Contains(st.String(), "killed") {
		t.Errorf("the child that ignores SIGTERM ended as %v, want killed", st)
	}
}

func TestRmReapKeepsADirtyTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	startIn(t, path, "sleep", "300")
	s.Write(filepath.Join(path, "work.txt"), "x")
	if r := s.WT("rm", "--reap", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "uncommitted") {
		t.Fatalf("rm --reap of a dirty task: %s", r)
	}
	if !testutil.Exists(filepath.Join(path, "work.txt")) {
		t.Fatal("rm --reap lost work")
	}
}

func TestRmReapRefusesWhenItCannotSee(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	sleeper := startIn(t, path, "sleep", "300")
	r := blindWT(t, s, "fallback", s.Repo, "rm", "--reap", "T")
	if r.Code != 3 || !testutil.Exists(path) {
		t.Fatalf("rm --reap where processes cannot be seen: %s", r)
	}
	if syscall.Kill(sleeper.Process.Pid, 0) != nil {
		t.Fatal("rm --reap signalled a process it could not see as in the worktree")
	}
}

// wt.symlink links an ignored folder of the main worktree into each task
// (SPEC §17), kept out of the task's status, and rm deletes the link,
// never what it points to.
func TestSymlinkLinksAnIgnoredFolder(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(".gitignore", "node_modules/\n")
	s.Git(s.Repo, "commit", "-q", "-am", "ignore node_modules")
	s.Write("node_modules/dep/index.js", "x\n")
	s.Git(s.Repo, "config", "wt.symlink", "node_modules")
	path := s.MustWT("new", "T").Out()
	link := filepath.Join(path, "node_modules")
	if target, err := os.Readlink(link); err != nil || target != filepath.Join(s.Repo, "node_modules") {
		t.Fatalf("node_modules in the task: %q, %v", target, err)
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" {
		t.Fatalf("the link makes the task dirty: %q", st)
	}
	if r := s.WT("rm", "T"); r.Code != 0 {
		t.Fatalf("rm: %s", r)
	}
	if !testutil.Exists(filepath.Join(s.Repo, "node_modules", "dep", "index.js")) {
		t.Fatal("rm deleted the main worktree's folder through the link")
	}
	// From an untrusted .gitwt: nothing is linked.
	s.Git(s.Repo, "config", "--unset", "wt.symlink")
	s.Write(".gitwt", "[wt]\n\tsymlink = node_modules\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "gitwt")
	path = s.MustWT("new", "U").Out()
	if _, err := os.Lstat(filepath.Join(path, "node_modules")); err == nil {
		t.Fatal("an untrusted .gitwt's wt.symlink was linked")
	}
}

// The shell that runs rm --reap from inside the worktree is its caller:
// never signalled, and the removal refuses as without --reap.
func TestRmReapNeverEndsItsCaller(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	cmd := exec.Command("sh", "-c", `cd "$0" && git-wt rm --reap T; echo "still here $?"`, path)
	cmd.Env = s.Env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "still here 3") || !strings.Contains(string(out), "working directory of the shell") {
		t.Fatalf("rm --reap from inside the worktree: %v\n%s", err, out)
	}
	if !testutil.Exists(path) {
		t.Fatal("rm --reap removed the worktree its caller works in")
	}
}

// wt.symlink of a folder git does not ignore links nothing, and must not
// hide that folder either: info/exclude is every worktree's, so a line for
// it would make new files there invisible to commit and to rm's look for
// unsaved work (SPEC §19: an exclude line only for a link it made).
func TestSymlinkOfAFolderGitDoesNotIgnoreHidesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write("vendor/lib.go", "package lib\n")
	s.Git(s.Repo, "add", "vendor")
	s.Git(s.Repo, "commit", "-q", "-m", "vendor")
	s.Git(s.Repo, "config", "wt.symlink", "vendor")
	r := s.MustWT("new", "T")
	if !strings.Contains(r.Stderr, "not linked") {
		t.Fatalf("new did not say vendor was not linked: %s", r)
	}
	path := r.Out()
	s.Write(filepath.Join(path, "vendor", "new.go"), "package lib\n")
	if st := s.Git(path, "status", "--porcelain"); !strings.Contains(st, "vendor/new.go") {
		t.Fatalf("a new file in vendor/ is hidden from git status: %q", st)
	}
	if r := s.WT("rm", "T"); r.Code != 3 || !testutil.Exists(filepath.Join(path, "vendor", "new.go")) {
		t.Fatalf("rm of a task with a new file in vendor/: %s", r)
	}
}
