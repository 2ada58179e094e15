// This test protects the retry of a git that fails on a lock another git
// holds for a moment, for a git that reads its input too: the ref
// transactions (update-ref --stdin) of a fleet's news meet the ref locks
// of the others', and failed at once.
package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil/githome"
)

func TestATransactionIsRetriedPastALockHeldForAMoment(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		branch bool // refs/heads/x exists before
		run    func(r *Runner, repo, head string) error
		want   string // refs/heads/x after it; "" for none
	}{
		{"a started transaction", false, func(r *Runner, repo, head string) error {
			return r.StartRefUpdate(ctx, repo, false).Create(ctx, []Ref{{Name: "refs/heads/x", OID: head}})
		}, "head"},
		{"a transaction with its input", true, func(r *Runner, repo, head string) error {
			return r.DeleteRefs(ctx, repo, []Ref{{Name: "refs/heads/x", OID: head}})
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := githome.New(t)
			repo := filepath.Join(root, "repo")
			githome.Git(t, root, "init", "-q", repo)
			githome.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
			r := &Runner{}
			out, err := r.Run(ctx, repo, "rev-parse", "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			head := strings.TrimSpace(out)
			if c.branch {
				githome.Git(t, repo, "branch", "x")
			}
			lock := filepath.Join(repo, ".git", "refs", "heads", "x.lock")
			if err := os.WriteFile(lock, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			letGo := time.AfterFunc(100*time.Millisecond, func() { os.Remove(lock) })
			defer letGo.Stop()
			if err := c.run(r, repo, head); err != nil {
				t.Fatalf("the transaction failed on a lock let go 100 ms later: %v", err)
			}
			got, _ := r.Run(ctx, repo, "for-each-ref", "--format=%(objectname)", "refs/heads/x")
			if want := strings.ReplaceAll(c.want, "head", head); strings.TrimSpace(got) != want {
				t.Fatalf("refs/heads/x is %q, want %q", got, want)
			}
		})
	}
}
