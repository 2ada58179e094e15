package removal

import "testing"

// A record's path is removed only when git lists the worktree there, or
// when it lies in the base dir and holds no other repository's git data
// (and, without --force, a .git file of this repository): never on the
// record's word alone (SPEC §19).
func TestWhyNotOurs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     folderFacts
		force bool
		ok    bool
	}{
		{"listed, outside the base dir (adopted)", folderFacts{Listed: true}, false, true},
		{"listed, in the base dir", folderFacts{Listed: true, InBase: true, Git: ownGitFile}, false, true},
		{"outside the base dir, not listed", folderFacts{Git: ownGitFile}, false, false},
		{"outside the base dir, not listed, --force", folderFacts{Git: noGitFile}, true, false},
		{"another repository's worktree outside", folderFacts{Git: foreignGitFile}, true, false},
		{"another repository's worktree in the base dir", folderFacts{InBase: true, Git: foreignGitFile}, false, false},
		{"another repository's worktree in the base dir, --force", folderFacts{InBase: true, Git: foreignGitFile}, true, false},
		{"pruned task in the base dir", folderFacts{InBase: true, Git: ownGitFile}, false, true},
		{"killed add in the base dir, no .git", folderFacts{InBase: true, Git: noGitFile}, false, false},
		{"killed add in the base dir, no .git, --force", folderFacts{InBase: true, Git: noGitFile}, true, true},
		{"listed through a linked worktrees folder, --force", folderFacts{Listed: true, LinkedEntries: true, InBase: true, Git: ownGitFile}, true, false},
	} {
		if got := whyNotOurs(tc.f, tc.force) == ""; got != tc.ok {
			t.Errorf("%s: removable %v, want %v (%q)", tc.name, got, tc.ok, whyNotOurs(tc.f, tc.force))
		}
	}
}
