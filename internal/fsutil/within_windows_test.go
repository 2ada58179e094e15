package fsutil

import "testing"

// On Windows filepath.Rel leads out of a folder with "..\", not "../": a
// folder beside dir, or dir's parent, is not within it.
func TestWithinOnWindowsPaths(t *testing.T) {
	for _, tc := range []struct {
		dir, path string
		want      bool
	}{
		{`C:\src\repo`, `C:\src\repo`, true},
		{`C:\src\repo`, `C:\src\repo\wt\a`, true},
		{`C:\src\repo`, `C:\src\repo..x`, false},
		{`C:\src\repo`, `C:\src\other`, false},
		{`C:\src\repo`, `C:\src`, false},
		{`C:\src\repo`, `D:\src\repo\a`, false},
	} {
		if got := Within(tc.dir, tc.path); got != tc.want {
			t.Errorf("Within(%s, %s) = %v, want %v", tc.dir, tc.path, got, tc.want)
		}
	}
}
