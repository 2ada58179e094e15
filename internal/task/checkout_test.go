// These tests protect the decisions the hooks make from their arguments
// and from git's listings alone, before any process is started.
package task

import (
	"reflect"
	"strings"
	"testing"
)

func TestNewWorktreeCheckoutFromArgumentsAlone(t *testing.T) {
	zero, sha := strings.Repeat("0", 40), strings.Repeat("ab", 20)
	zero256, sha256 := strings.Repeat("0", 64), strings.Repeat("c", 64)
	yes := [][3]string{{zero, sha, "1"}, {zero256, sha256, "1"}}
	no := [][3]string{
		{sha, sha, "1"},      // a branch switch
		{zero, sha, "0"},     // a file checkout
		{zero, zero256, "1"}, // lengths differ
		{"", sha, "1"}, {zero, "not-hex-not-hex-not-hex-not-hex-not-hex!", "1"},
	}
	for _, a := range yes {
		if !NewWorktreeCheckout(a[0], a[1], a[2]) {
			t.Errorf("%q: want a new worktree", a)
		}
	}
	for _, a := range no {
		if NewWorktreeCheckout(a[0], a[1], a[2]) {
			t.Errorf("%q: want nothing to do", a)
		}
	}
}

func TestOutermostDropsWhatAListedFolderHolds(t *testing.T) {
	got := outermost([]string{"logs/a.log", "sub/", ".env", "logs/", "sub/deep/x", "sub-file", "a-b/"})
	want := []string{".env", "a-b/", "logs/", "sub-file", "sub/"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outermost = %q, want %q", got, want)
	}
}
