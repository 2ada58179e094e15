package inspect

import (
	"context"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// TestReadStatus holds a task's status to what git status says: the base
// is counted in the same process only when it is a ref, and the branch's
// tip only when the task's own branch is checked out.
func TestReadStatus(t *testing.T) {
	const oid = "1111111111111111111111111111111111111111"
	status := []string{"status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=none", "--branch"}
	counted := append(slices.Clone(status), "--ahead-behind")
	notCounted := append(status, "--no-ahead-behind")
	// A counted status passes the base as the branch's upstream, in the
	// command's config.
	upstream := []git.ConfigPair{{Key: "branch.wt/a.remote", Value: "."}, {Key: "branch.wt/a.merge", Value: "refs/heads/main"}}
	for _, tc := range []struct {
		name string
		rec  *record.Record
		argv []string
		out  string
		want worktreeStatus
	}{
		{"dirty count only", nil, notCounted,
			"# branch.oid " + oid + "\x00# branch.head wt/a\x00? x\x00? y z\x00",
			worktreeStatus{dirty: 2, head: oid, branch: "wt/a"}},
		{"counted against a ref base", &record.Record{Branch: "wt/a", Base: "refs/heads/main"}, counted,
			"# branch.oid " + oid + "\x00# branch.head wt/a\x00# branch.ab +2 -1\x00",
			worktreeStatus{head: oid, branch: "wt/a", tip: oid, ahead: 2, behind: 1, hasAB: true}},
		{"a commit base is counted apart", &record.Record{Branch: "wt/a", Base: "v1.0", BaseSHA: oid}, notCounted,
			"# branch.oid " + oid + "\x00# branch.head wt/a\x00",
			worktreeStatus{head: oid, branch: "wt/a", tip: oid}},
		{"another branch checked out", &record.Record{Branch: "wt/a", Base: "refs/heads/main"}, counted,
			"# branch.oid " + oid + "\x00# branch.head other\x00# branch.ab +5 -5\x00",
			worktreeStatus{head: oid, branch: "other"}},
		{"detached", &record.Record{Branch: "wt/a", Base: "refs/heads/main"}, counted,
			"# branch.oid " + oid + "\x00# branch.head (detached)\x00",
			worktreeStatus{head: oid}},
		{"unborn", &record.Record{Branch: "wt/a", Base: "refs/heads/main"}, counted,
			"# branch.oid (initial)\x00# branch.head wt/a\x00",
			worktreeStatus{branch: "wt/a", tip: "(initial)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			call := f.Expect(tc.argv...).Out(tc.out)
			got, err := readStatus(context.Background(), f.Git(), "/r/wt", tc.rec, false)
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
			if want := slices.Equal(tc.argv, counted); call.Got == nil || slices.Equal(call.Got.Config, upstream) != want {
				t.Errorf("ran %+v; want the upstream in its config: %v", call.Got, want)
			}
		})
	}
}

func TestDirtyCountFailureIsAnError(t *testing.T) {
	f := gittest.New(t)
	f.Expect("status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=none", "--branch", "--no-ahead-behind").
		Fail(128, "fatal: not a git repository")
	m := &Inspector{Manager: &task.Manager{Git: f.Git()}}
	if n, err := m.DirtyCount(context.Background(), "/r/wt"); err == nil || git.ExitCode(err) != 128 || n != 0 {
		t.Errorf("got %d, %v; want git's error", n, err)
	}
}
