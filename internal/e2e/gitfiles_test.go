//go:build unix

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// What a killed git leaves in git's own files besides ref locks (issue
// 35): packed-refs.new (after which every deletion of a packed ref fails
// with "File exists"), a reflog's lock (git reflog expire, inside git gc),
// gc.pid, shallow.lock, config.lock, and the index.lock of a linked
// worktree that is no task's. doctor reports each and --fix deletes it
// once no git could still hold it; a live git's are kept.
var killedGitFiles = []string{"packed-refs.new", "logs/HEAD.lock", "logs/refs/heads/main.lock",
	"gc.pid", "shallow.lock", "config.lock"}

func plainWorktreeIndexLock(t *testing.T, s *testutil.Sandbox) (dir, lock string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "plain")
	s.Git(s.Repo, "worktree", "add", "-q", "-b", "plain", dir)
	return dir, filepath.Join(s.Repo, ".git", "worktrees", "plain", "index.lock")
}

func TestDoctorClearsWhatAKilledGitLeftInGitsFiles(t *testing.T) {
	s := testutil.NewSandbox(t)
	_, index := plainWorktreeIndexLock(t, s)
	s.Git(s.Repo, "branch", "packed")
	s.Git(s.Repo, "pack-refs", "--all")
	files := []string{index}
	for _, name := range killedGitFiles {
		files = append(files, filepath.Join(s.Repo, ".git", filepath.FromSlash(name)))
	}
	for _, f := range files {
		s.Write(f, "")
	}
	r := s.WT("doctor")
	for _, f := range files {
		if r.Code != 1 || !strings.Contains(r.Stdout, f) {
			t.Fatalf("doctor must report %s: %s", f, r)
		}
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	for _, f := range files {
		if testutil.Exists(f) {
			t.Errorf("doctor --fix kept %s", f)
		}
	}
	s.Git(s.Repo, "branch", "-D", "packed") // a packed ref deleted: no "File exists"
}

func TestDoctorKeepsWhatALiveGitHoldsInGitsFiles(t *testing.T) {
	s := testutil.NewSandbox(t)
	dir, index := plainWorktreeIndexLock(t, s)
	// Gits working in the main worktree and in the linked one, started
	// before the files are made: each could be their holder.
	for _, where := range []string{s.Repo, dir} {
		cmd := exec.Command("git", "cat-file", "--batch")
		cmd.Dir, cmd.Env = where, s.Env
		in, _ := startPiped(t, cmd)
		t.Cleanup(func() { in.Close(); cmd.Wait() })
	}
	files := []string{index}
	for _, name := range killedGitFiles {
		files = append(files, filepath.Join(s.Repo, ".git", filepath.FromSlash(name)))
	}
	for _, f := range files {
		s.Write(f, "")
	}
	r := s.WT("doctor", "--fix")
	for _, f := range files {
		if !testutil.Exists(f) {
			t.Errorf("doctor --fix deleted %s, which a live git may hold: %s", f, r)
		}
	}
}
