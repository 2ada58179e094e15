package git

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// On Windows every git git-wt runs may reach paths longer than MAX_PATH
// (SPEC §21), and a worktree's folder in git's C:/ form or another case is
// the main worktree, not a folder to prove linked.
func TestGitOnWindowsGetsLongPathsAndTakesAnyPathSpelling(t *testing.T) {
	root := githome.New(t)
	repo := filepath.Join(root, "repo")
	newRepo(t, repo)
	r := &Runner{}
	if _, err := r.Locate(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Run(context.Background(), repo, "config", "--get", "core.longpaths"); err != nil || out != "true\n" {
		t.Errorf("core.longpaths: %q, %v; want true", out, err)
	}
	for _, dir := range []string{filepath.ToSlash(repo), strings.ToUpper(repo), strings.ToLower(repo)} {
		if out, err := r.RunIn(context.Background(), dir, "rev-parse", "--git-dir"); err != nil {
			t.Errorf("git in %s: %q, %v", dir, out, err)
		}
	}
}
