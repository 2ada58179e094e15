package place

import (
	"strings"
	"testing"
)

// A worktree whose deepest file would pass LongPathLimit gets a warning
// naming the length; one within it, or an empty tree, none.
func TestLongPathWarning(t *testing.T) {
	wt := `C:\Users\someone\src\repo-worktrees\T` // 37 characters
	for _, tc := range []struct {
		longest int
		want    string
	}{
		{0, ""},
		{100, ""},
		{162, ""}, // 37 + 1 + 162 = 200
		{163, "reach 201 characters, over 200"},
	} {
		got := longPathWarning(wt, tc.longest)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("longest %d: %q, want %q", tc.longest, got, tc.want)
		}
	}
}
