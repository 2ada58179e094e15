package settings

import "testing"

// TestUntrustedBaseDirAllowed protects the places an untrusted .gitwt may
// name as the base dir (SPEC §14): inside the main worktree, or directly
// beside it with a name that starts with the repository's.
func TestUntrustedBaseDirAllowed(t *testing.T) {
	for dir, want := range map[string]bool{
		"/src/repo/.agents/wt":   true,
		"/src/repo/x":            true,
		"/src/repo-worktrees":    true,
		"/src/repository-shared": true,
		"/src/repo":              false, // the main worktree itself
		"/src":                   false,
		"/src/other":             false,
		"/src/repo-x/deeper":     false,
		"/elsewhere/repo-x":      false,
		"/src/repo/../other":     false,
	} {
		if got := UntrustedBaseDirAllowed("/src/repo", dir); got != want {
			t.Errorf("UntrustedBaseDirAllowed(/src/repo, %s) = %v, want %v", dir, got, want)
		}
	}
}
