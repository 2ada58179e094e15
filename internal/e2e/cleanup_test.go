//go:build unix

// These tests protect the post-merge cleanup and the one definition of
// "merged" (SPEC §5, §7): after a merge or pull, the tasks based on the
// branch that received it and now merged into it — as ancestors, squashed
// or rebased, also on a forge and pulled — are removed; fresh, unmerged,
// dirty and locked ones are kept; rm and list agree with the hook.
package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// commitIn writes file with content in dir and commits it.
func commitIn(s *testutil.Sandbox, dir, file, content string) {
	s.T.Helper()
	s.Write(filepath.Join(dir, file), content)
	s.Git(dir, "add", file)
	s.Git(dir, "commit", "-qm", "edit "+file)
}

// hasTask reports whether the task still has a record.
func hasTask(s *testutil.Sandbox, slug string) bool {
	return s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/"+slug)
}

func TestPostMergeRemovesMergedTasksAndKeepsTheRest(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("install")
	merged := s.MustWT("new", "merged").Out()
	commitIn(s, merged, "a.txt", "a\n")
	fresh := s.MustWT("new", "fresh").Out()
	dirty := s.MustWT("new", "dirty").Out()
	commitIn(s, dirty, "d.txt", "d\n")
	s.Write(filepath.Join(dirty, "wip.txt"), "uncommitted\n")
	locked := s.MustWT("new", "locked").Out()
	commitIn(s, locked, "l.txt", "l\n")
	s.Git(s.Repo, "worktree", "lock", locked)
	busy := s.MustWT("new", "busy").Out()
	commitIn(s, busy, "b.txt", "b\n")
	startIn(t, busy, "sleep", "600") // a process works in it
	open := s.MustWT("new", "open").Out()
	commitIn(s, open, "o.txt", "o\n")
	other := s.MustWT("new", "other", "--base", s.Git(s.Repo, "rev-parse", "HEAD")).Out() // based on a commit, not main
	commitIn(s, other, "x.txt", "x\n")
	s.Git(s.Repo, "merge", "-q", "--no-edit", "heads/wt/other")

	out, code := gitRun(t, s.Env, s.Repo, "merge", "--no-edit", "heads/wt/merged", "heads/wt/dirty", "heads/wt/locked", "heads/wt/busy")
	if code != 0 {
		t.Fatalf("git merge: %d %s", code, out)
	}
	if testutil.Exists(merged) || hasTask(s, "merged") || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/merged") {
		t.Fatalf("the merged task is not removed with its branch and record:\n%s", out)
	}
	if !strings.Contains(out, `removed merged task "merged"`) {
		t.Fatalf("the removal must be said:\n%s", out)
	}
	if !strings.Contains(out, `kept merged task "dirty"`) || !strings.Contains(out, "1 uncommitted change") {
		t.Fatalf("a dirty merged task must be kept with a warning:\n%s", out)
	}
	for _, name := range []string{"busy", "locked"} {
		if !strings.Contains(out, `kept merged task "`+name+`"`) {
			t.Fatalf("the merged task %s must be kept with a warning:\n%s", name, out)
		}
	}
	for name, path := range map[string]string{"fresh": fresh, "dirty": dirty, "locked": locked, "busy": busy, "open": open, "other": other} {
		if !testutil.Exists(path) || !hasTask(s, name) {
			t.Errorf("task %s was removed", name)
		}
	}
}

func TestPostMergeUnderGitWtOrWithCleanupOffKeepsTasks(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("install")
	path := s.MustWT("new", "T").Out()
	commitIn(s, path, "t.txt", "t\n")
	// A merge run by git-wt itself (git wt merge --keep): the hook stands aside.
	internal := append(append([]string(nil), s.Env...), "GIT_WT_INTERNAL=1")
	if out, code := gitRun(t, internal, s.Repo, "merge", "-q", "--no-ff", "--no-edit", "heads/wt/T"); code != 0 || !testutil.Exists(path) {
		t.Fatalf("the hook acted under git-wt's own merge: %d %s", code, out)
	}
	s.Git(s.Repo, "reset", "-q", "--hard", "HEAD~1")
	s.Git(s.Repo, "config", "wt.cleanupOnMerge", "false")
	out, _ := gitRun(t, s.Env, s.Repo, "merge", "--no-ff", "--no-edit", "heads/wt/T")
	if !testutil.Exists(path) || !strings.Contains(out, "wt.cleanupOnMerge is off") {
		t.Fatalf("wt.cleanupOnMerge=false removed the task or said nothing:\n%s", out)
	}
}

// forge is a bare remote with a second clone of it, where "someone else"
// merges task branches the way forges do.
type forge struct {
	s      *testutil.Sandbox
	remote string
	clone  string
}

func newForge(t *testing.T, s *testutil.Sandbox) *forge {
	root := filepath.Dir(s.Repo)
	f := &forge{s: s, remote: filepath.Join(root, "remote.git"), clone: filepath.Join(root, "forge")}
	s.Git(root, "init", "-q", "--bare", "-b", "main", f.remote)
	s.Git(s.Repo, "remote", "add", "origin", f.remote)
	s.Git(s.Repo, "push", "-q", "-u", "origin", "main")
	s.Git(root, "clone", "-q", f.remote, f.clone)
	return f
}

// publish pushes a task's branch to the remote as name.
func (f *forge) publish(worktree, name string) {
	f.s.Git(worktree, "push", "-q", "origin", "HEAD:refs/heads/"+name)
	f.s.Git(f.clone, "fetch", "-q", "origin")
}

// squash merges the published branch name into the forge's main as one
// commit.
func (f *forge) squash(name string) {
	f.s.Git(f.clone, "merge", "-q", "--squash", "origin/"+name)
	f.s.Git(f.clone, "commit", "-qm", name+" (squashed)")
}

// land pushes the forge's main and runs git pull in the main worktree; it
// returns what git pull printed.
func (f *forge) land(t *testing.T) string {
	f.s.Git(f.clone, "push", "-q", "origin", "main")
	out, code := gitRun(t, f.s.Env, f.s.Repo, "pull", "--no-rebase", "--no-edit")
	if code != 0 {
		t.Fatalf("git pull: %s", out)
	}
	return out
}

func TestPullOfASquashMergeFromAnotherCloneRemovesTheTask(t *testing.T) {
	for name, main := range map[string]struct{ before, after string }{
		// Main edits next to T's lines before the squash: the squash
		// commit's diff has other context than T's, so its patch id
		// differs and only merging T again (merge-tree) changes nothing.
		"merge-tree": {before: "1\n2\n3\nfour\n"},
		// Main edits T's lines after the squash: merging T again would
		// conflict, and only the patch id of T's whole diff tells.
		"patch-id": {after: "one, improved\ntwo\n3\n4\n"},
	} {
		t.Run(name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			commitIn(s, s.Repo, "feature.txt", "1\n2\n3\n4\n")
			f := newForge(t, s)
			s.MustWT("install")
			path := s.MustWT("new", "T").Out()
			commitIn(s, path, "feature.txt", "one\n2\n3\n4\n")
			commitIn(s, path, "feature.txt", "one\ntwo\n3\n4\n")
			f.publish(path, "T")
			if main.before != "" {
				commitIn(s, f.clone, "feature.txt", main.before)
			}
			f.squash("T")
			if main.after != "" {
				commitIn(s, f.clone, "feature.txt", main.after)
			}
			out := f.land(t)
			if testutil.Exists(path) || hasTask(s, "T") || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
				t.Fatalf("a squash-merged task survived git pull:\n%s", out)
			}
		})
	}
}

func TestPullOfARebaseMergeRemovesTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	f := newForge(t, s)
	s.MustWT("install")
	path := s.MustWT("new", "T").Out()
	commitIn(s, path, "a.txt", "a\n")
	commitIn(s, path, "b.txt", "b\n")
	plain := s.MustWT("new", "U").Out() // rebased too, then edited: only per-commit patch ids tell
	commitIn(s, plain, "c.txt", "c\n")
	commitIn(s, plain, "d.txt", "d\n")
	unmerged := s.MustWT("new", "V").Out()
	commitIn(s, unmerged, "a.txt", "a\n") // the same change as one of T's, but V has more
	commitIn(s, unmerged, "v.txt", "v\n")
	f.publish(path, "T")
	f.publish(plain, "U")
	commitIn(s, f.clone, "main.txt", "main moved\n")
	for _, b := range []string{"T", "U"} {
		cmd := exec.Command("git", "rebase", "-q", "main", "origin/"+b)
		cmd.Dir, cmd.Env = f.clone, s.Env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rebase: %v %s", err, out)
		}
		s.Git(f.clone, "checkout", "-q", "-B", "main", "HEAD")
	}
	commitIn(s, f.clone, "c.txt", "c, edited\n")

	out := f.land(t)
	for _, p := range []string{path, plain} {
		if testutil.Exists(p) {
			t.Errorf("a rebase-merged task survived git pull: %s\n%s", p, out)
		}
	}
	if !testutil.Exists(unmerged) || !hasTask(s, "V") {
		t.Fatalf("a task with one unmerged commit was removed:\n%s", out)
	}
}

func TestRmAndListAgreeThatASquashedBranchIsMerged(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	commitIn(s, path, "feature.txt", "one\n")
	commitIn(s, s.Repo, "other.txt", "other\n")
	s.Git(s.Repo, "merge", "-q", "--squash", "heads/wt/T")
	s.Git(s.Repo, "commit", "-qm", "T (squashed)")
	if r := s.MustWT("list", "--json"); !strings.Contains(r.Stdout, `"merged": true`) {
		t.Fatalf("list does not see the squash merge:\n%s", r.Stdout)
	}
	r := s.MustWT("rm", "T", "--json")
	if !strings.Contains(r.Stdout, `"branch_outcome": "deleted"`) {
		t.Fatalf("rm must delete a squash-merged branch:\n%s", r)
	}
}
