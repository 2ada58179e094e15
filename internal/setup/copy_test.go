// These tests protect the decisions the hooks make from git's listings.
package setup

import (
	"reflect"
	"testing"
)

func TestOutermostDropsWhatAListedFolderHolds(t *testing.T) {
	got := outermost([]string{"logs/a.log", "sub/", ".env", "logs/", "sub/deep/x", "sub-file", "a-b/"})
	want := []string{".env", "a-b/", "logs/", "sub-file", "sub/"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outermost = %q, want %q", got, want)
	}
}
