//go:build unix

// These tests protect `git wt rm` (SPEC §7): dirty work is never deleted,
// unmerged commits keep their branch, and everything else goes cleanly.
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// gone asserts the task's worktree, branch and record are all gone.
func gone(t *testing.T, s *testutil.Sandbox, slug, path string) {
	t.Helper()
	if testutil.Exists(path) {
		t.Errorf("worktree %s still exists", path)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/"+slug) {
		t.Errorf("record refs/git-wt/tasks/%s still exists", slug)
	}
	if strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), path) {
		t.Errorf("git still lists %s", path)
	}
}

func TestRmRefusesEachKindOfDirtyAndChangesNothing(t *testing.T) {
	kinds := map[string]func(s *testutil.Sandbox, path string){
		"untracked": func(s *testutil.Sandbox, path string) { s.Write(filepath.Join(path, "new.txt"), "x") },
		"modified":  func(s *testutil.Sandbox, path string) { s.Write(filepath.Join(path, "README.md"), "changed") },
		"staged": func(s *testutil.Sandbox, path string) {
			s.Write(filepath.Join(path, "staged.txt"), "x")
			s.Git(path, "add", "staged.txt")
		},
		"hidden-by-status-config": func(s *testutil.Sandbox, path string) {
			s.Git(s.Repo, "config", "status.showUntrackedFiles", "no")
			s.Write(filepath.Join(path, "new.txt"), "x")
		},
	}
	for name, dirty := range kinds {
		t.Run(name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			dirty(s, path)
			r := s.WT("rm", "T")
			if r.Code != 3 || !strings.Contains(r.Stderr, "1 uncommitted change") || !strings.Contains(r.Stderr, "--force") {
				t.Fatalf("rm of a %s worktree: %s", name, r)
			}
			if !testutil.Exists(path) || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") ||
				!s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
				t.Fatal("a refused rm changed something")
			}
			if r := s.WT("rm", "--force", "T"); r.Code != 0 {
				t.Fatalf("rm --force: %s", r)
			}
			gone(t, s, "T", path)
		})
	}
}

func TestRmRemovesIgnoredFilesAndReadOnlyOutput(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "STATE.json"), "{}")
	ro := filepath.Join(path, "build", "cache", "mod")
	s.Write(filepath.Join(ro, "file.go"), "package x")
	os.Chmod(filepath.Join(ro, "file.go"), 0o444)
	os.Chmod(ro, 0o555)
	os.Chmod(filepath.Dir(ro), 0o555)
	s.GiveToNobody()
	r := s.AsNobody("rm", "T")
	if r.Code != 0 {
		t.Fatalf("rm with ignored, read-only output: %s", r)
	}
	gone(t, s, "T", path)
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("a branch with no commits of its own must be deleted")
	}
}

func TestRmKeepsABranchWithUnmergedCommits(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "work.txt", "1", "one")
	s.Write(filepath.Join(path, "work.txt"), "2")
	s.Git(path, "commit", "-qam", "two")
	r := s.WT("rm", "T", "--json")
	if r.Code != 0 || !strings.Contains(r.Stderr, "kept branch wt/T: 2 commits not merged") {
		t.Fatalf("rm of a clean worktree with unmerged commits: %s", r)
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out) != 1 {
		t.Fatalf("--json: %v %s", err, r.Stdout)
	}
	if out[0]["worktree_outcome"] != "deleted" || out[0]["branch_outcome"] != "kept_unmerged" {
		t.Fatalf("--json outcomes: %v", out[0])
	}
	gone(t, s, "T", path)
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("the branch with unmerged commits was deleted")
	}
}

func TestRmDeletesAMergedBranch(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "work.txt", "1", "one")
	s.Git(s.Repo, "merge", "-q", "--no-ff", "-m", "merge", "refs/heads/wt/T")
	s.MustWT("rm", "T")
	gone(t, s, "T", path)
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("a merged branch must be deleted")
	}
}

func TestRmForceAndKeepBranch(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, id := range []string{"A", "B"} {
		path := s.MustWT("new", id).Out()
		commitFile(s, path, "w.txt", "1", "w")
	}
	s.MustWT("rm", "--force", "A")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/A") {
		t.Fatal("rm --force must delete an unmerged branch")
	}
	s.Git(s.Repo, "merge", "-q", "refs/heads/wt/B")
	s.MustWT("rm", "B", "--keep-branch")
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/B") {
		t.Fatal("rm --keep-branch deleted the branch")
	}
}

func TestRmDryRunChangesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	r := s.WT("rm", "--dry-run", "T", "--json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"would_delete"`) || !strings.Contains(r.Stderr, "would remove") {
		t.Fatalf("rm --dry-run: %s", r)
	}
	if !testutil.Exists(path) || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatal("--dry-run removed something")
	}
}

func TestRmAfterTheFolderWasDeletedBehindItsBack(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	os.RemoveAll(path)
	s.MustWT("rm", "T")
	gone(t, s, "T", path)
	if strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), "prunable") {
		t.Fatal("git's admin entry was left behind")
	}
}

func TestRmNeverRemovesTheMainWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, arg := range []string{".", s.Repo, "main"} {
		r := s.WT("rm", "--force", arg)
		if r.Code != 3 || !strings.Contains(r.Stderr, "main worktree") {
			t.Errorf("rm --force %q: %s", arg, r)
		}
	}
	if !testutil.Exists(filepath.Join(s.Repo, "README.md")) {
		t.Fatal("the main worktree was touched")
	}
}

func TestRmOfAnUnknownTaskSucceeds(t *testing.T) {
	s := testutil.NewSandbox(t)
	r := s.WT("rm", "no-such-task")
	if r.Code != 0 || !strings.Contains(r.Stderr, "nothing to remove") {
		t.Fatalf("rm of an unknown task: %s", r)
	}
}

func TestRmSeveralTasksExitsWithTheHighestCode(t *testing.T) {
	s := testutil.NewSandbox(t)
	clean := s.MustWT("new", "clean").Out()
	dirty := s.MustWT("new", "dirty").Out()
	s.Write(filepath.Join(dirty, "x"), "x")
	r := s.WT("rm", "clean", "dirty", "unknown")
	if r.Code != 3 {
		t.Fatalf("rm clean dirty unknown: %s", r)
	}
	gone(t, s, "clean", clean)
	if !testutil.Exists(filepath.Join(dirty, "x")) {
		t.Fatal("the dirty worktree lost its file")
	}
}

func TestRmRefusesAWorktreeInUse(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	sub := filepath.Join(path, "sub")
	os.MkdirAll(sub, 0o755)
	s.Write(filepath.Join(path, ".gitignore"), "sub/\n")
	s.Git(path, "add", ".gitignore")
	s.Git(path, "commit", "-qm", "ignore sub")
	sleeper := startIn(t, sub, "sleep", "60")
	r := s.WT("rm", "T")
	if r.Code != 3 || !strings.Contains(r.Stderr, "in use") {
		t.Fatalf("rm of a worktree in use: %s", r)
	}
	sleeper.Process.Kill()
	sleeper.Wait()
	s.MustWT("rm", "T", "--force")
	gone(t, s, "T", path)
}

func TestRmRefusesAWorktreeReplacedByASymlink(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	victim := filepath.Join(filepath.Dir(s.Repo), "victim")
	s.Write(filepath.Join(victim, "precious.txt"), "mine")
	os.RemoveAll(path)
	os.Symlink(victim, path)
	if r := s.WT("rm", "T"); r.Code != 3 {
		t.Fatalf("rm of a symlinked worktree: %s", r)
	}
	if r := s.WT("rm", "T", "--force"); r.Code != 0 {
		t.Fatalf("rm --force of a symlinked worktree: %s", r)
	}
	if !testutil.Exists(filepath.Join(victim, "precious.txt")) {
		t.Fatal("rm followed the symlink and deleted someone else's file")
	}
	gone(t, s, "T", path)
}

func TestRmFromInsideTheWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	if r := s.WTIn(path, "rm", "."); r.Code != 0 {
		t.Fatalf("rm . from inside the worktree: %s", r)
	}
	gone(t, s, "T", path)
}

func TestRmDropsTheBranchsUpstreamConfig(t *testing.T) {
	s := testutil.NewSandbox(t)
	remote := filepath.Join(filepath.Dir(s.Repo), "remote.git")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "--bare", remote)
	s.Git(s.Repo, "remote", "add", "origin", remote)
	path := s.MustWT("new", "T").Out()
	commitFile(s, path, "w.txt", "w", "w")
	s.MustWT("push", "T")
	if !s.GitOK(s.Repo, "config", "branch.wt/T.remote") {
		t.Fatal("push did not set the upstream")
	}
	s.MustWT("rm", "T") // pushed: no commit is lost, so the branch goes
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") || s.GitOK(s.Repo, "config", "branch.wt/T.remote") {
		t.Fatal("rm left the branch or its config section")
	}
}
