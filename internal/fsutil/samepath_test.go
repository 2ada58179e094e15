package fsutil

import (
	"path/filepath"
	"testing"
)

// A path is the same path once cleaned; on Windows more spellings are
// (within_windows_test.go).
func TestSamePathComparesCleanPaths(t *testing.T) {
	root := filepath.FromSlash("/src/repo")
	for _, tc := range []struct {
		b    string
		want bool
	}{
		{"/src/repo", true},
		{"/src/repo/", true},
		{"/src/./repo", true},
		{"/src/x/../repo", true},
		{"/src/repo2", false},
		{"/src", false},
	} {
		if got := SamePath(root, filepath.FromSlash(tc.b)); got != tc.want {
			t.Errorf("SamePath(%s, %s) = %v, want %v", root, tc.b, got, tc.want)
		}
	}
}
