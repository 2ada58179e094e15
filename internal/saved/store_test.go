package saved

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// The copy of a worktree's index a save stages into lives in git-wt's own
// folder: a git-wt killed mid-save leaves it, and git's lock on it, where
// no git and no doctor takes them for git's own files, and not outside
// the repository.
func TestTheIndexCopyIsInGitWtsOwnFolder(t *testing.T) {
	root := githome.New(t)
	repo := filepath.Join(root, "repo")
	githome.Git(t, root, "init", "-q", repo)
	githome.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(root, "wt")
	githome.Git(t, repo, "worktree", "add", "-q", wt)
	common := filepath.Join(repo, ".git")
	s := &Store{Git: &git.Runner{}, Dir: repo, CommonDir: common}
	err := s.withIndexCopy(context.Background(), wt, "", func(index string) error {
		if own := filepath.Join(common, "wt") + string(filepath.Separator); !strings.HasPrefix(index, own) {
			t.Errorf("the index copy %s is not in git-wt's own folder %s", index, own)
		}
		if _, err := os.Stat(index); err != nil {
			t.Errorf("no index copy at %s: %v", index, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
