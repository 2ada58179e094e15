package git

import "testing"

// The patterns git 2.39's `sparse-checkout set --cone --stdin` writes for
// the same directories, byte for byte.
func TestConePatternsAreGits(t *testing.T) {
	got := ConePatterns([]string{"c*d", "a/b", "x/y z", "a/b/deeper"})
	want := "/*\n!/*/\n/a/\n!/a/*/\n/x/\n!/x/*/\n/a/b/\n/c\\*d/\n/x/y z/\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := ConePatterns([]string{"d007"}); got != "/*\n!/*/\n/d007/\n" {
		t.Errorf("one folder: %q", got)
	}
}
