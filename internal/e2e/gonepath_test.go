//go:build unix

// These tests protect the ways back from a deleted folder: `git wt path
// --main` from a current directory that was deleted, and `git wt rm PATH`
// of a task whose folder was deleted (SPEC §7).
package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// shellIn runs script with sh, in the sandbox's environment, with $1 set
// to dir; the shell stays alive while git wt runs.
func shellIn(t *testing.T, s *testutil.Sandbox, script, dir string) testutil.Result {
	t.Helper()
	cmd := exec.Command("sh", "-c", script, "sh", dir)
	cmd.Dir, cmd.Env = s.Repo, s.Env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return testutil.Result{Stdout: out.String(), Stderr: errb.String(), Code: exitStatus(t, err)}
}

func TestPathMainFromADeletedDirectory(t *testing.T) {
	for _, others := range []int{0, 1} {
		s := testutil.NewSandbox(t)
		if others > 0 {
			s.MustWT("new", "other")
		}
		path := s.MustWT("new", "T").Out()
		r := shellIn(t, s, `cd "$1" && rm -rf "$1" && git wt path --main`, path)
		if r.Code != 0 || strings.TrimSpace(r.Stdout) != s.Repo {
			t.Fatalf("path --main from a deleted worktree (%d other tasks): %s", others, r)
		}
	}
}

func TestRmOfAPathWhoseFolderIsGone(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	os.RemoveAll(path)
	r := s.WT("rm", path)
	if r.Code != 0 || strings.Contains(r.Stderr, "nothing to remove") {
		t.Fatalf("rm of a deleted worktree's path: %s", r)
	}
	gone(t, s, "T", path)
	assertNothingLeft(t, s)
}
