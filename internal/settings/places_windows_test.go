package settings

import "testing"

// On Windows filepath.Rel leads out of a folder with "..\", not "../": an
// untrusted .gitwt may not name a folder elsewhere as the base dir.
func TestUntrustedBaseDirAllowedOnWindowsPaths(t *testing.T) {
	for dir, want := range map[string]bool{
		`C:\src\repo\.agents\wt`: true,
		`C:\src\repo-worktrees`:  true,
		`C:\src\other\x`:         false,
		`C:\elsewhere`:           false,
	} {
		if got := UntrustedBaseDirAllowed(`C:\src\repo`, dir); got != want {
			t.Errorf("UntrustedBaseDirAllowed(C:\\src\\repo, %s) = %v, want %v", dir, got, want)
		}
	}
}
