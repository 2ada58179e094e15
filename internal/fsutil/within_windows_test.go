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

// git prints C:/… where Go writes C:\…, Windows ignores case, and a long
// path may carry the \\?\ prefix: the same path in each spelling is one
// path.
func TestSamePathOnWindowsPaths(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`C:\src\repo\wt\T`, `C:/src/repo/wt/T`, true},
		{`C:\src\repo\wt\T`, `c:\SRC\Repo\wt\t`, true},
		{`C:\src\repo\wt\T\.git`, `C:/src/repo/wt/T/.git/`, true},
		{`C:\src\repo\wt\T`, `C:\src\repo\wt\T\..\T`, true},
		{`C:\src\repo\wt\T`, `\\?\C:\src\repo\wt\T`, true},
		{`\\server\share\wt\T`, `\\?\UNC\server\share\wt\T`, true},
		{`C:\src\repo\wt\T`, `D:\src\repo\wt\T`, false},
		{`C:\src\repo\wt\T`, `C:\src\repo\wt\T2`, false},
	} {
		if got := SamePath(tc.a, tc.b); got != tc.want {
			t.Errorf("SamePath(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
