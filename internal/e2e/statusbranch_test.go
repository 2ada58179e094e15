//go:build unix

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// A branch name may hold "=" (git allows it): list still reads its
// worktree's status and counts its commits ahead of the base, the name
// reaching git whole, never split as -c's key=value would split it.
func TestListCountsABranchWithAnEqualsSign(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T", "--branch", "wt/a=b").Out()
	commitFile(s, path, "work.txt", "x", "work")
	var views []struct {
		Branch      string `json:"branch"`
		Dirty       int    `json:"dirty"`
		Ahead       *int   `json:"ahead"`
		Behind      *int   `json:"behind"`
		StatusError string `json:"status_error"`
	}
	r := s.MustWT("list", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &views); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	if len(views) != 1 || views[0].Branch != "wt/a=b" || views[0].StatusError != "" || views[0].Dirty != 0 || views[0].Ahead == nil || *views[0].Ahead != 1 || *views[0].Behind != 0 {
		t.Fatalf("list --json of branch wt/a=b one commit ahead: %s", r)
	}
}
