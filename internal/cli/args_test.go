// These tests protect the git-style argument order: flags before or after
// arguments, "--" ending flags, global flags anywhere.
package cli

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
)

func TestNormalizeArgs(t *testing.T) {
	app := newApp(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	cases := []struct{ in, want []string }{
		{[]string{"new", "T", "--base", "main"}, []string{"new", "--base", "main", "--", "T"}},
		{[]string{"new", "--json", "T"}, []string{"new", "--json", "--", "T"}},
		{[]string{"new", "T", "--base=main", "-C", "/x"}, []string{"-C", "/x", "new", "--base=main", "--", "T"}},
		{[]string{"--quiet", "rm", "a", "--force", "b"}, []string{"--quiet", "rm", "--force", "--", "a", "b"}},
		{[]string{"new", "--", "-rf", "--base"}, []string{"new", "--", "-rf", "--base"}},
		{[]string{"list"}, []string{"list"}},
		{[]string{"--version"}, []string{"--version"}},
		{[]string{"help", "rm"}, []string{"rm", "--help"}},
		{[]string{"rm", "-h"}, []string{"rm", "-h"}},
		{[]string{"exec", "T", "make", "-j4"}, []string{"exec", "--", "T", "make", "-j4"}},
		{[]string{"-q", "exec", "T", "--", "ls", "-l"}, []string{"-q", "exec", "--", "T", "--", "ls", "-l"}},
		{[]string{"exec", "--quiet", "T", "git", "--quiet"}, []string{"--quiet", "exec", "--", "T", "git", "--quiet"}},
	}
	for _, c := range cases {
		got, _, err := normalizeArgs(app, append([]string{"git-wt"}, c.in...))
		if err != nil || !reflect.DeepEqual(got[1:], c.want) {
			t.Errorf("normalizeArgs(%q) = %q, %v; want %q", c.in, got[1:], err, c.want)
		}
	}
	if _, _, err := normalizeArgs(app, []string{"git-wt", "frob"}); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("unknown command: %v", err)
	}
}
