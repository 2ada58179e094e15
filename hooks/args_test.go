// These tests protect the hook's first decision, made from git's
// arguments alone before any process starts: only a new worktree and a
// committed merge are work, and nothing git can pass makes it panic.
package hooks

import (
	"strings"
	"testing"
)

var (
	zero, sha       = strings.Repeat("0", 40), strings.Repeat("ab", 20)
	zero256, sha256 = strings.Repeat("0", 64), strings.Repeat("c", 64)
)

func TestDecide(t *testing.T) {
	cases := []struct {
		args []string
		want Work
		err  bool
	}{
		{[]string{"post-checkout", zero, sha, "1"}, AdoptWorktree, false},
		{[]string{"post-checkout", zero256, sha256, "1"}, AdoptWorktree, false},
		{[]string{"post-checkout", sha, sha, "1"}, NoWork, false},      // a branch switch
		{[]string{"post-checkout", zero, sha, "0"}, NoWork, false},     // a file checkout
		{[]string{"post-checkout", zero, zero256, "1"}, NoWork, false}, // lengths differ
		{[]string{"post-checkout", "", sha, "1"}, NoWork, false},       // no previous HEAD
		{[]string{"post-checkout", zero, "not-hex!" + sha[8:], "1"}, NoWork, false},
		{[]string{"post-merge", "0"}, CleanupMerged, false},
		{[]string{"post-merge", "1"}, NoWork, false}, // a squash: nothing committed yet
		{nil, NoWork, true},
		{[]string{"post-checkout", zero, sha}, NoWork, true},
		{[]string{"pre-commit"}, NoWork, true},
		{[]string{"post-merge"}, NoWork, true},
	}
	for _, c := range cases {
		got, err := Decide(c.args)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Decide(%q) = %v, %v; want %v, error %v", c.args, got, err, c.want, c.err)
		}
	}
}

func FuzzDecide(f *testing.F) {
	f.Add("post-checkout", zero, sha, "1")
	f.Add("post-checkout", sha, sha, "0")
	f.Add("post-merge", "0", "", "")
	f.Add("post-checkout", zero256, sha256, "1")
	f.Fuzz(func(t *testing.T, name, a, b, c string) {
		for _, args := range [][]string{{name}, {name, a}, {name, a, b}, {name, a, b, c}} {
			work, err := Decide(args)
			if err != nil && work != NoWork {
				t.Fatalf("Decide(%q) = %v with an error", args, work)
			}
			if work == AdoptWorktree && (strings.Trim(args[1], "0") != "" || args[3] != "1" || len(args[2]) != len(args[1])) {
				t.Fatalf("Decide(%q) adopts without a new worktree's arguments", args)
			}
		}
	})
}
