// These tests protect the version git wt --version says: the one stamped
// from git describe, else (go install ...@v1.2.3) the module's; and the
// project it names, which tells git-wt from other programs of that name.
package cli

import "testing"

func TestPickVersion(t *testing.T) {
	for _, c := range []struct{ stamped, module, want string }{
		{"v1.2.3-4-gabcdef0", "v1.2.0", "v1.2.3-4-gabcdef0"},
		{"dev", "v1.2.3", "v1.2.3"},
		{"dev", "(devel)", "dev"},
		{"dev", "", "dev"},
	} {
		if got := pickVersion(c.stamped, c.module); got != c.want {
			t.Errorf("pickVersion(%q, %q) = %q, want %q", c.stamped, c.module, got, c.want)
		}
	}
}

// TestVersionLineNamesTheProject: git wt --version must tell this git-wt
// from worktrunk's git-wt.exe and other programs of that name (SPEC §21).
func TestVersionLineNamesTheProject(t *testing.T) {
	if got, want := versionLine("v1.2.3"), "git-wt version v1.2.3 (github.com/git-wt/git-wt)"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
}
