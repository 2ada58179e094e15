// These tests hold the worktree operations to their argv, against the fake
// git of gittest: a change of flags (what makes a removal forced, what
// keeps the checkout's own lock reason readable) fails here first.
package git_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestWorktreeOperationsArgv(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(g *git.Runner) error
		want []string
	}{
		{"add, detached and not checked out", func(g *git.Runner) error { return g.AddWorktree(ctx, "/r", "/w/-odd", h1) },
			[]string{"worktree", "add", "--no-checkout", "--detach", "--", "/w/-odd", h1}},
		{"remove, even dirty or locked", func(g *git.Runner) error { return g.RemoveWorktree(ctx, "/r", "/w/t") },
			[]string{"worktree", "remove", "--force", "--force", "/w/t"}},
		{"remove as plain git would, never forced", func(g *git.Runner) error { return g.RemoveCleanWorktree(ctx, "/r", "/w/-t") },
			[]string{"worktree", "remove", "--", "/w/-t"}},
		{"move, a rename", func(g *git.Runner) error { return g.MoveWorktree(ctx, "/r", "/b/.pool/-a", "/b/t") },
			[]string{"worktree", "move", "--", "/b/.pool/-a", "/b/t"}},
		{"refresh the index", func(g *git.Runner) error { return g.Index().Refresh(ctx, "/w/t") },
			[]string{"update-index", "-q", "--refresh"}},
		{"lock with a reason", func(g *git.Runner) error { return g.LockWorktree(ctx, "/r", "/w/t", "agent 7") },
			[]string{"worktree", "lock", "/w/t", "--reason", "agent 7"}},
		{"lock without one", func(g *git.Runner) error { return g.LockWorktree(ctx, "/r", "/w/t", "") },
			[]string{"worktree", "lock", "/w/t"}},
		{"unlock", func(g *git.Runner) error { return g.UnlockWorktree(ctx, "/r", "/w/-t") },
			[]string{"worktree", "unlock", "--", "/w/-t"}},
		{"point HEAD", func(g *git.Runner) error { return g.PointHead(ctx, "/w/t", "refs/heads/wt/t") },
			[]string{"symbolic-ref", "HEAD", "refs/heads/wt/t"}},
		{"check the tree out, HEAD left alone", func(g *git.Runner) error { return g.CheckOutTree(ctx, "/w/t", "refs/heads/wt/t") },
			[]string{"read-tree", "--reset", "-u", "--no-recurse-submodules", "refs/heads/wt/t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			call := f.Expect(tc.want...)
			if err := tc.run(f.Git()); err != nil {
				t.Fatal(err)
			}
			if tc.name == "add, detached and not checked out" && !slices.Contains(call.Got.Env, "LC_ALL=C") {
				t.Errorf("worktree add runs with %v: git's lock reason must be written in LC_ALL=C", call.Got.Env)
			}
		})
	}
}

func TestAFailedWorktreeOperationIsAnError(t *testing.T) {
	f := gittest.New(t)
	f.Expect("worktree", "remove", "--force", "--force", "/w/t").Fail(128, "fatal: '/w/t' is not a working tree")
	if err := f.Git().RemoveWorktree(context.Background(), "/r", "/w/t"); git.ExitCode(err) != 128 {
		t.Fatalf("got %v, want git's exit 128", err)
	}
}

func TestWorktreesOfAnotherRepositoryArePinnedAndReadOnly(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("worktree", "list", "--porcelain").Out("worktree /r\nHEAD " + h1 + "\nbranch refs/heads/main\n\nworktree /w/a\nHEAD " + h1 + "\ndetached\nprunable gone\n\n")
	wts, err := f.Git().WorktreesOf(context.Background(), "/r/.git")
	if err != nil {
		t.Fatal(err)
	}
	// The paths are the system's: git's /r is \r on Windows.
	if len(wts) != 2 || wts[0].Path != filepath.FromSlash("/r") || wts[0].Branch != "refs/heads/main" || wts[1].Path != filepath.FromSlash("/w/a") || !wts[1].Prunable {
		t.Errorf("parsed %+v", wts)
	}
	if got := call.Got; got.Dir != "/r/.git" || got.InWorktree || !slices.Equal(got.Env, []string{"GIT_DIR=/r/.git", "GIT_OPTIONAL_LOCKS=0"}) {
		t.Errorf("git ran in %q with %v: want GIT_DIR pinned to the common dir, and no optional locks", got.Dir, got.Env)
	}
}

func TestAskVersionKeepsGitsVersionForTheRunnersCommands(t *testing.T) {
	f := gittest.New(t)
	f.Expect("version").Out("git version 2.39.5\n")
	f.Expect("worktree", "list", "--porcelain", "-z").Out("worktree /r\x00HEAD " + h1 + "\x00locked two\nlines\x00\x00")
	g := f.Git()
	v, err := g.AskVersion(context.Background())
	if err != nil || v != (git.Version{Major: 2, Minor: 39}) {
		t.Fatalf("AskVersion = %v, %v", v, err)
	}
	wts, err := g.Worktrees(context.Background(), "/r")
	if err != nil || len(wts) != 1 || wts[0].LockReason != "two\nlines" {
		t.Errorf("worktrees %+v %v: a runner that knows its git reads the listing with -z", wts, err)
	}
	f.Expect("version").Out("git version 2.30.1\n")
	if _, err := f.Git().AskVersion(context.Background()); err == nil {
		t.Error("git 2.30 accepted: git-wt needs 2.31")
	}
}
