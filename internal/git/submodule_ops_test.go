package git_test

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

// A hostile submodule name reaches git only whole, in a key of the
// command's Cmd.Config, never in its argv.
func TestSubmoduleUpdateKeepsNamesOutOfTheArgv(t *testing.T) {
	f := gittest.New(t)
	hostile := "lib.update=!touch PWNED #"
	call := f.Expect("submodule", "update", "--", "a")
	at := git.ModuleCheckout{Dir: "/t", GitDir: "/r/.git/worktrees/t"}
	err := f.Git().Submodules().Update(context.Background(), at, []git.ModuleSource{{Name: hostile, Path: "a", From: "/r/.git/modules/x"}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(call.Got.Config, git.ConfigPair{Key: "submodule." + hostile + ".url", Value: "/r/.git/modules/x"}) {
		t.Errorf("the name's URL is not a whole config key: %+v", call.Got.Config)
	}
}

// A URL that starts with "-" is a value, not an option of git config;
// the config written is the submodule's git dir's own, not one git would
// find from its folder.
func TestSetOriginTakesTheURLAsAValue(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("config", "--file="+filepath.FromSlash("/r/.git/worktrees/t/modules/a/config"), "--", "remote.origin.url", "-u")
	if err := f.Git().Submodules().SetOrigin(context.Background(), "/r/.git/worktrees/t/modules/a", "-u"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(call.Got.Env, "GIT_DIR=/r/.git/worktrees/t/modules/a") {
		t.Errorf("git config ran with no git dir pinned: %+v", call.Got)
	}
}

// Whether a path is a gitlink is asked of the tree, paths literal, git
// pinned to the worktree's own git dir.
func TestGitlinksAsksTheTreeOfThePinnedGitDir(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("ls-tree", "-z", "--full-tree", "HEAD", "--", "lib", "evil").
		Out("160000 commit 1111111111111111111111111111111111111111\tlib\x00120000 blob 2222222222222222222222222222222222222222\tevil\x00")
	at := git.ModuleCheckout{Dir: "/t", GitDir: "/r/.git/worktrees/t"}
	got, err := f.Git().Submodules().Gitlinks(context.Background(), at, []string{"lib", "evil"})
	if err != nil || !got["lib"] || got["evil"] {
		t.Errorf("Gitlinks = %v, %v", got, err)
	}
	for _, v := range []string{"GIT_DIR=/r/.git/worktrees/t", "GIT_WORK_TREE=/t", "GIT_LITERAL_PATHSPECS=1"} {
		if !slices.Contains(call.Got.Env, v) {
			t.Errorf("ls-tree ran without %s: %+v", v, call.Got.Env)
		}
	}
}

func TestStoreOriginReadsTheModuleRepositorysConfig(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--file="+filepath.FromSlash("/r/.git/modules/a/config"), "--get", "remote.origin.url").Out("https://h/a.git\n")
	f.Expect("config", "--file="+filepath.FromSlash("/r/.git/modules/b/config"), "--get", "remote.origin.url").Fail(1, "")
	subs := f.Git().Submodules()
	if url, err := subs.StoreOrigin(context.Background(), "/r/.git/modules/a"); url != "https://h/a.git" || err != nil {
		t.Errorf("StoreOrigin: %q, %v", url, err)
	}
	if url, err := subs.StoreOrigin(context.Background(), "/r/.git/modules/b"); url != "" || err != nil {
		t.Errorf("StoreOrigin with no origin: %q, %v", url, err)
	}
}
