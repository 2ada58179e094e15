//go:build unix

// These tests protect where git-wt's git runs in a task worktree (SPEC
// §19): the worktree's .git file and its admin entry's commondir file are
// files an agent in the task can write, never what tells git-wt's git
// which repository (and so which config, with its core.fsmonitor
// command) it works in.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// gitDirSwaps are the two ways an agent swaps a task's git data for its
// own, a copy of the repository's git dir whose config runs a command
// (core.fsmonitor touches pwned) in any git that reads it: the admin
// entry's commondir names the copy, or the worktree's .git file does.
var gitDirSwaps = map[string]func(s *testutil.Sandbox, path, fake string){
	"commondir": func(s *testutil.Sandbox, path, fake string) {
		s.Write(filepath.Join(s.Repo, ".git", "worktrees", "a", "commondir"), fake+"\n")
	},
	".git file": func(s *testutil.Sandbox, path, fake string) {
		s.Write(filepath.Join(path, ".git"), "gitdir: "+fake+"\n")
	},
}

func TestASwappedGitDirRunsNothingAndKeepsTheTask(t *testing.T) {
	for name, swap := range gitDirSwaps {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "a").Out()
			s.Write(filepath.Join(path, "work.txt"), "the agent's work\n")
			clone := filepath.Join(t.TempDir(), "clone")
			fake, pwned := filepath.Join(clone, ".git"), filepath.Join(t.TempDir(), "PWNED")
			s.Git(s.Repo, "clone", "-q", "--no-checkout", s.Repo, clone)
			s.Git(s.Repo, "--git-dir="+fake, "config", "core.fsmonitor", "touch '"+pwned+"'; false")
			swap(s, path, fake)

			for _, args := range [][]string{{"list"}, {"show", "a"}, {"commit", "a", "-m", "x"}, {"rm", "a"}} {
				r := s.WT(args...)
				if testutil.Exists(pwned) {
					t.Errorf("git wt %s ran the swapped git dir's command: %s", strings.Join(args, " "), r)
					os.Remove(pwned)
				}
				if strings.Count(strings.TrimSpace(r.Stderr), "\n") > 0 && args[0] != "list" {
					t.Errorf("git wt %s: say why in one line: %s", strings.Join(args, " "), r)
				}
			}
			if r := s.WT("path", "a"); r.Code != 0 || r.Out() != path || !testutil.Exists(filepath.Join(path, "work.txt")) {
				t.Fatalf("the task whose status cannot be read was not kept: %s", r)
			}
			// Refused by whichever check meets it first: the folder's git
			// files, or the proof that it is this repository's worktree.
			if r := s.WT("rm", "a"); r.Code != 3 || !strings.Contains(r.Stderr, path) {
				t.Errorf("rm must refuse, saying why: %s", r)
			}
			if r := s.WT("doctor", "--fix"); !strings.Contains(r.Stdout, "changed-git-files") || testutil.Exists(pwned) || !testutil.Exists(path) {
				t.Errorf("doctor must name the changed files, run nothing and keep the task: %s", r)
			}
		})
	}
}

// docker-args mounts the repository's own common dir, never a folder the
// worktree's .git file names.
func TestDockerArgsRefuseAWorktreeWhoseGitFileLies(t *testing.T) {
	t.Parallel()
	s, path := dockerSandbox(t)
	if err := os.WriteFile(filepath.Join(path, ".git"), []byte("gitdir: /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := s.WT("docker-args", "T")
	if r.Code != 1 || strings.Contains(r.Stdout, "source=/,") || !strings.Contains(r.Stderr, "not a worktree of this repository") {
		t.Fatalf("docker-args of a worktree whose .git names /: %s", r)
	}
}
