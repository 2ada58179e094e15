package git_test

import (
	"context"
	"io"
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
	err := f.Git().Submodules().Update(context.Background(), "/t", true, []git.ModuleSource{{Name: hostile, Path: "a", From: "/r/.git/modules/x"}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(call.Got.Config, git.ConfigPair{Key: "submodule." + hostile + ".url", Value: "/r/.git/modules/x"}) {
		t.Errorf("the name's URL is not a whole config key: %+v", call.Got.Config)
	}
}

// A URL that starts with "-" is a value, not an option of git config.
func TestSetOriginTakesTheURLAsAValue(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--", "remote.origin.url", "-u")
	if err := f.Git().Submodules().SetOrigin(context.Background(), "/t/a", "-u"); err != nil {
		t.Fatal(err)
	}
}

func TestStoreOriginReadsTheModuleRepositorysConfig(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--file=/r/.git/modules/a/config", "--get", "remote.origin.url").Out("https://h/a.git\n")
	f.Expect("config", "--file=/r/.git/modules/b/config", "--get", "remote.origin.url").Fail(1, "")
	subs := f.Git().Submodules()
	if url, err := subs.StoreOrigin(context.Background(), "/r/.git/modules/a"); url != "https://h/a.git" || err != nil {
		t.Errorf("StoreOrigin: %q, %v", url, err)
	}
	if url, err := subs.StoreOrigin(context.Background(), "/r/.git/modules/b"); url != "" || err != nil {
		t.Errorf("StoreOrigin with no origin: %q, %v", url, err)
	}
}
