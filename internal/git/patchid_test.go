// This test runs the real git: diff-tree --stdin leaves out a last input
// line without a line break, which a fake git would not show.
package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/githome"
)

func TestPatchIDsOfEveryOwnCommitEvenTheLast(t *testing.T) {
	dir := filepath.Join(githome.New(t), "repo")
	newRepo(t, dir)
	githome.Git(t, dir, "checkout", "-q", "-b", "topic")
	for _, name := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644)
		githome.Git(t, dir, "add", name)
		githome.Git(t, dir, "commit", "-q", "-m", name)
	}
	r, ctx := &Runner{}, context.Background()
	revs, err := r.History().OwnCommits(ctx, dir, "topic", "topic~2")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := r.History().PatchIDs(ctx, dir, revs)
	if err != nil || len(ids) != 2 {
		t.Fatalf("patch ids %v, %v: want one for each of the 2 commits", ids, err)
	}
}
