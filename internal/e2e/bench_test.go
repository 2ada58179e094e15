// These benchmarks measure what the hooks add to git (SPEC §9): the
// post-checkout hook when it has nothing to do, and the post-merge hook
// with 100 task worktrees. Run them with `make bench`.
package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// hookRun runs an installed hook as git would, in dir.
func hookRun(b *testing.B, s *testutil.Sandbox, dir, name string, args ...string) {
	cmd := exec.Command(filepath.Join(s.Repo, ".git", "hooks", name), args...)
	cmd.Dir, cmd.Env = dir, s.Env
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		b.Fatalf("%s: %v %s", name, err, out)
	}
}

// BenchmarkPostCheckoutNothingToDo is the hook when it has nothing to do:
// on a branch switch the shim decides from its arguments alone; on a clone
// (the same arguments as a new worktree) git-wt starts and decides from
// the .git folder, before any git process.
func BenchmarkPostCheckoutNothingToDo(b *testing.B) {
	s := testutil.NewSandbox(b)
	s.MustWT("install")
	head := s.Git(s.Repo, "rev-parse", "HEAD")
	for name, prev := range map[string]string{"switch": head, "clone": strings.Repeat("0", len(head))} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				hookRun(b, s, s.Repo, "post-checkout", prev, head, "1")
			}
		})
	}
}

// BenchmarkPostMerge100Tasks is the hook after a merge into main with 100
// task worktrees, each with a commit of its own, none of them merged.
func BenchmarkPostMerge100Tasks(b *testing.B) {
	s := testutil.NewSandbox(b)
	s.MustWT("install")
	for i := 0; i < 100; i++ {
		path := s.MustWT("new", fmt.Sprintf("task-%03d", i), "--no-init").Out()
		commitIn(s, path, fmt.Sprintf("f%03d.txt", i), "work\n")
	}
	commitIn(s, s.Repo, "main.txt", "main moves on\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hookRun(b, s, s.Repo, "post-merge", "0")
	}
	b.StopTimer()
	if n := strings.Count(s.Git(s.Repo, "for-each-ref", "refs/wt/"), "\n") + 1; n != 100 {
		b.Fatalf("%d tasks left, want 100", n)
	}
}
