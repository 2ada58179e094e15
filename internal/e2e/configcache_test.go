package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// keptListings are the config listings git-wt keeps in the repository.
func keptListings(s *testutil.Sandbox) []string {
	kept, _ := filepath.Glob(filepath.Join(s.Repo, ".git", "wt", "config-cache", "*.json"))
	return kept
}

// ageSandbox sets every file of the sandbox back an hour, past the time
// in which a changed config file is never trusted to a kept listing.
func ageSandbox(s *testutil.Sandbox) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(filepath.Dir(s.Repo), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// A setting changed with git config is what the next command uses, even
// though the listing before the change was kept; and a removed task's
// kept listing goes with it.
func TestAConfigChangeIsSeenAtOnceThoughTheListingWasKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	ageSandbox(s)
	s.MustWT("list")
	if len(keptListings(s)) != 1 {
		t.Fatalf("list kept no config listing: %v", keptListings(s))
	}
	s.Git(s.Repo, "config", "wt.branchPrefix", "mine/")
	path := s.MustWT("new", "-q", "T").Out()
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/mine/T") {
		t.Fatal("new used the kept listing from before git config wt.branchPrefix")
	}
	ageSandbox(s)
	s.MustWT("-C", path, "list") // keeps the task worktree's listing
	if len(keptListings(s)) != 2 {
		t.Fatalf("want the main worktree's and the task's listings kept, got %v", keptListings(s))
	}
	s.MustWT("rm", "-q", "T")
	if len(keptListings(s)) != 1 {
		t.Fatalf("rm left the task's kept listing: %v", keptListings(s))
	}
}
