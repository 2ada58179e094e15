//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// A branch prefix or base dir from a .gitwt that starts with "-" or holds
// a control character is ignored with a warning, and new works; the user's
// own config with such a value is refused (exit 2), in one line.
func TestGitwtPlacesThatCouldBeOptionsOrBreakLinesAreIgnored(t *testing.T) {
	for name, gitwt := range map[string]string{
		"prefix -c":        "[wt]\n\tbranchPrefix = -c\n",
		"prefix newline":   "[wt]\n\tbranchPrefix = \"a\\nb/\"\n",
		"baseDir newline":  "[wt]\n\tbaseDir = \"../repo-x\\ny\"\n",
		"baseDir -":        "[wt]\n\tbaseDir = -trees\n",
		"baseDir with tab": "[wt]\n\tbaseDir = \"../repo-x\\ty\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			s.Write(".gitwt", gitwt)
			s.Git(s.Repo, "add", ".gitwt")
			s.Git(s.Repo, "commit", "-q", "-m", "team defaults")
			r := s.WT("new", "T")
			want := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
			if r.Code != 0 || r.Out() != want {
				t.Fatalf("new: %s", r)
			}
			if !strings.Contains(r.Stderr, "warning: ignored wt.") {
				t.Errorf("no warning: %s", r)
			}
			if got := s.Git(want, "symbolic-ref", "HEAD"); got != "refs/heads/wt/T" {
				t.Errorf("the task's branch is %q", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(s.Repo))
			for _, e := range entries {
				if strings.ContainsAny(e.Name(), "\n\t") {
					t.Errorf("a folder with a control character: %q", e.Name())
				}
			}
		})
	}
}

func TestOwnPlacesThatCouldBeOptionsOrBreakLinesAreRefused(t *testing.T) {
	for key, value := range map[string]string{"wt.branchPrefix": "-c", "wt.baseDir": "../x\ny"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			s.Git(s.Repo, "config", key, value)
			r := s.WT("new", "T")
			if r.Code != 2 || !strings.Contains(r.Stderr, key) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
				t.Fatalf("%s = %q in the user's config: %s", key, value, r)
			}
		})
	}
}
