package settings

import (
	"strings"
	"testing"
)

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

// A base dir or branch prefix that git could read as an option, or that
// puts a control character into names, is ignored from a .gitwt (trusted
// or not) and Invalid from the user's own config (SPEC §19).
func TestPlacesThatCouldBeOptionsOrBreakLines(t *testing.T) {
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		key, value string
		bad        bool
	}{
		{"wt.branchPrefix", "-c", true},
		{"wt.branchPrefix", " -c", true},
		{"wt.branchPrefix", "a\nb/", true},
		{"wt.branchPrefix", "a\x1b[31m/", true},
		{"wt.branchPrefix", "git-wt/", true},
		{"wt.branchPrefix", "team/", false},
		{"wt.branchPrefix", "a-b/", false},
		{"wt.baseDir", "-trees", true},
		{"wt.baseDir", "../repo-x\ny", true},
		{"wt.baseDir", "../repo-x\ty", true},
		{"wt.baseDir", "../repo-x\u0085y", true},
		{"wt.baseDir", "../repo-a-b", false},
	} {
		for _, trusted := range []bool{false, true} {
			gitwt := []keyValue{{key: canonicalKey(tc.key), Value: Value{Value: tc.value, Scope: ScopeGitwt}}}
			var mine []keyValue
			if trusted {
				mine = []keyValue{{key: "wt.trusted", Value: Value{Value: sum, Scope: ScopeLocal}}}
			}
			s := &Settings{values: layer(gitwt, mine), GitwtSHA256: sum}
			if err := s.resolve("/src/repo"); err != nil {
				t.Fatal(err)
			}
			kept := s.BranchPrefix == tc.value || s.BaseDirScope == ScopeGitwt
			warned := strings.Contains(strings.Join(s.Warnings, "\n"), "ignored "+tc.key)
			if kept == tc.bad || warned != tc.bad || len(s.Invalid) > 0 {
				t.Errorf(".gitwt %s = %q (trusted %v): kept %v, warnings %q, invalid %v", tc.key, tc.value, trusted, kept, s.Warnings, s.Invalid)
			}
		}
		s := &Settings{values: layer(nil, []keyValue{{key: canonicalKey(tc.key), Value: Value{Value: tc.value, Scope: ScopeLocal}}})}
		if err := s.resolve("/src/repo"); err != nil {
			t.Fatal(err)
		}
		if invalid := len(s.Invalid) > 0; invalid != tc.bad || invalid && strings.Contains(s.Invalid[0].Error(), "\n") {
			t.Errorf("own %s = %q: invalid %v", tc.key, tc.value, s.Invalid)
		}
	}
}
