// These tests protect what git-wt takes from gh's answers before it
// reaches git's command line (SPEC §19).
package gh

import "testing"

func TestCommitIDTakesOnlyAFullCommitID(t *testing.T) {
	sha1, sha256 := "0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for in, want := range map[string]string{
		sha1:              sha1,
		sha256:            sha256,
		"":                "",
		"--output=/tmp/x": "",
		"0123456789ABCDEF0123456789abcdef01234567": "",
		"HEAD":          "",
		sha1[:39] + "-": "",
	} {
		if got := commitID(in); got != want {
			t.Errorf("commitID(%q) = %q, want %q", in, got, want)
		}
	}
}
