//go:build unix

// These tests protect `git wt commit` and `git wt push`: a step's work is
// committed whole (new files too, ignored ones never), an empty step is
// no error, and a pushed branch always ends with its upstream set.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestCommitStagesNewFilesButNotIgnoredOnes(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "new dir", "new.txt"), "new")
	s.Write(filepath.Join(path, "README.md"), "changed")
	os.Remove(filepath.Join(path, ".gitignore"))
	s.Write(filepath.Join(path, ".gitignore"), "STATE.json\nbuild/\n")
	s.Write(filepath.Join(path, "STATE.json"), "{}")
	s.Write(filepath.Join(path, "build", "out.o"), "x")
	r := s.WT("commit", "T", "-m", "step one")
	if r.Code != 0 || r.Out() != s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") {
		t.Fatalf("commit must print the new commit: %s", r)
	}
	files := s.Git(s.Repo, "show", "--format=%s", "--name-only", "refs/heads/wt/T")
	if files != "step one\n\nREADME.md\nnew dir/new.txt" {
		t.Fatalf("the commit holds:\n%s", files)
	}
	if st := s.Git(path, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the worktree is not clean after commit:\n%s", st)
	}
	if !testutil.Exists(filepath.Join(path, "STATE.json")) {
		t.Fatal("an ignored file was touched")
	}
}

func TestCommitWithNothingToCommitPrintsTheCurrentCommit(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "STATE.json"), "{}") // ignored: nothing to commit
	head := s.Git(s.Repo, "rev-parse", "refs/heads/wt/T")
	r := s.WT("commit", "T", "-m", "nothing")
	if r.Code != 0 || r.Out() != head || !strings.Contains(r.Stderr, "nothing to commit") {
		t.Fatalf("commit with nothing to commit: %s", r)
	}
	if now := s.Git(s.Repo, "rev-parse", "refs/heads/wt/T"); now != head {
		t.Fatal("an empty commit was made")
	}
}

func TestCommitBadInputAndFailingHook(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "x")
	for _, c := range []struct {
		args []string
		code int
	}{{[]string{"commit", "T"}, 2}, {[]string{"commit", "T", "-m", " "}, 2}, {[]string{"commit", "nosuch", "-m", "x"}, 5}} {
		if r := s.WT(c.args...); r.Code != c.code || !strings.HasPrefix(r.Stderr, "git-wt: ") {
			t.Errorf("git wt %q: want exit %d, got %s", c.args, c.code, r)
		}
	}
	s.Write(filepath.Join(s.Repo, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho 'lint: work.txt is bad' >&2\nexit 1\n")
	os.Chmod(filepath.Join(s.Repo, ".git", "hooks", "pre-commit"), 0o755)
	r := s.WT("commit", "T", "-m", "rejected")
	if r.Code != 1 || !strings.Contains(r.Stderr, "lint: work.txt is bad") || !strings.Contains(r.Stderr, path) {
		t.Fatalf("commit refused by a hook: %s", r)
	}
	if s.Git(s.Repo, "rev-parse", "refs/heads/wt/T") != s.Git(s.Repo, "rev-parse", "main") {
		t.Fatal("a commit was made although the hook refused it")
	}
}

// withRemote gives the sandbox a bare repository as its remote "origin".
func withRemote(s *testutil.Sandbox) string {
	remote := filepath.Join(filepath.Dir(s.Repo), "remote.git")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "--bare", remote)
	s.Git(s.Repo, "remote", "add", "origin", remote)
	return remote
}

// pushSetup makes task T with one commit in a sandbox with a remote.
func pushSetup(t *testing.T) (s *testutil.Sandbox, remote, path, head string) {
	s = testutil.NewSandbox(t)
	remote = withRemote(s)
	path = s.MustWT("new", "T").Out()
	return s, remote, path, commitFile(s, path, "work.txt", "x", "work")
}

func TestPushSetsTheUpstream(t *testing.T) {
	t.Parallel()
	s, remote, path, head := pushSetup(t)
	if r := s.WT("push", "T"); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("push: %s", r)
	}
	if got := s.Git(remote, "rev-parse", "refs/heads/wt/T"); got != head {
		t.Fatalf("the remote has wt/T at %s, want %s", got, head)
	}
	if up := s.Git(path, "rev-parse", "--abbrev-ref", "@{upstream}"); up != "origin/wt/T" {
		t.Fatalf("upstream %q", up)
	}
}

func TestPushNoticesAnUpstreamGitCouldNotSet(t *testing.T) {
	t.Parallel()
	s, remote, path, head := pushSetup(t)
	// Another process holds .git/config's lock: git push -u pushes, says
	// it could not write the upstream, and exits 0.
	lock := filepath.Join(s.Repo, ".git", "config.lock")
	s.Write(lock, "")
	r := s.WT("push", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, "could not set its upstream") || !strings.Contains(r.Stderr, "--set-upstream-to=origin/wt/T") {
		t.Fatalf("push with .git/config locked: %s", r)
	}
	if got := s.Git(remote, "rev-parse", "refs/heads/wt/T"); got != head {
		t.Fatal("the push itself must have happened")
	}
	os.Remove(lock)
	if r := s.WT("push", "T"); r.Code != 0 || s.Git(path, "rev-parse", "--abbrev-ref", "@{upstream}") != "origin/wt/T" {
		t.Fatalf("push once the lock is gone: %s", r)
	}
}

func TestPushChoosesItsRemote(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	if r := s.WT("push", "T"); r.Code != 1 || !strings.Contains(r.Stderr, "no remote") {
		t.Fatalf("push without remotes: %s", r)
	}
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(filepath.Dir(s.Repo), name+".git")
		s.Git(filepath.Dir(s.Repo), "init", "-q", "--bare", dir)
		s.Git(s.Repo, "remote", "add", name, dir)
	}
	if r := s.WT("push", "T"); r.Code != 2 || !strings.Contains(r.Stderr, "--remote") {
		t.Fatalf("push with two remotes and no default: %s", r)
	}
	if r := s.WT("push", "T", "--remote", "nosuch"); r.Code != 2 {
		t.Fatalf("push to an unknown remote: %s", r)
	}
	s.Git(s.Repo, "config", "remote.pushDefault", "b")
	if r := s.WT("push", "T"); r.Code != 0 || !s.GitOK(filepath.Join(filepath.Dir(s.Repo), "b.git"), "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatalf("push with remote.pushDefault: %s", r)
	}
	if r := s.WT("push", "--remote", "a", "T"); r.Code != 0 || s.Git(s.Repo, "config", "branch.wt/T.remote") != "a" {
		t.Fatalf("push --remote a: %s", r)
	}
}

// A commit whose worktree is being removed meanwhile (rm deletes git's
// admin entry before the folder) ends with one git-wt line, not git's
// complaints about a repository that is gone.
func TestCommitWhoseAdminEntryGoesMeanwhileSaysOneLine(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "x")
	hook := filepath.Join(s.Repo, ".git", "hooks", "pre-commit")
	s.Write(hook, "#!/bin/sh\necho 'fatal: the hook saw its repository go' >&2\nrm -rf \"$(git rev-parse --absolute-git-dir)\"\nexit 1\n")
	os.Chmod(hook, 0o755)
	r := s.WT("commit", "T", "-m", "m")
	if r.Code == 0 {
		t.Fatalf("commit with its admin entry gone: %s", r)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
		if !strings.HasPrefix(line, "git-wt:") {
			t.Fatalf("an unprefixed line %q on stderr: %s", line, r)
		}
	}
}

// A worktree removed while its commit runs (a concurrent rm unregisters it
// after the commit landed) must not let git's complaints through raw: the
// hook's git below finds no repository, and git-wt's one line says why.
func TestCommitWhoseWorktreeGoesMeanwhileSpeaksInOneLine(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	hook := filepath.Join(s.Repo, ".git", "hooks", "post-commit")
	s.Write(hook, "#!/bin/sh\nrm -rf \"$(git rev-parse --git-dir)\"\ngit status\n")
	os.Chmod(hook, 0o755)
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	r := s.WT("commit", "T", "-m", "work")
	for _, l := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
		if !strings.HasPrefix(l, "git-wt") {
			t.Errorf("a line git-wt did not write: %q\n%s", l, r)
		}
	}
}
