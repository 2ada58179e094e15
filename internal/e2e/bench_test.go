//go:build unix

// These benchmarks measure the hot paths through the real binary (SPEC
// §9): path with 1,000 tasks, what the hooks add to git (post-checkout
// with nothing to do, post-merge with 100 task worktrees). Run them with
// `make bench`, which also compares git-wt with plain git (bench/compare).
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
	if n := strings.Count(s.Git(s.Repo, "for-each-ref", "refs/git-wt/tasks/"), "\n") + 1; n != 100 {
		b.Fatalf("%d tasks left, want 100", n)
	}
}

// BenchmarkPath1000Tasks is `git wt path` among 1,000 tasks: one ref read.
func BenchmarkPath1000Tasks(b *testing.B) {
	s := testutil.NewSandbox(b)
	var in strings.Builder
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("task-%04d", i)
		rec := fmt.Sprintf(`{"task":%q,"slug":%q,"branch":"wt/%s","path":"/w/%s","state":"active"}`, id, id, id, id)
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir, cmd.Env, cmd.Stdin = s.Repo, s.Env, strings.NewReader(rec)
		oid, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&in, "create refs/git-wt/tasks/%s %s", id, oid)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = s.Repo, s.Env, strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := s.WT("path", fmt.Sprintf("task-%04d", i*37%1000)); r.Code != 0 {
			b.Fatal(r)
		}
	}
}
