// These tests protect the messages git wt merge writes (like git's for a
// merge, like GitHub's for a squash) against a fake git.
package workflow

import (
	"context"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

func flowOn(f *gittest.Fake) *Flow {
	return &Flow{Manager: &task.Manager{Git: f.Git(), Repo: &git.Repo{MainDir: "/r"}}}
}

func squashPlan(rec *record.Record) *mergePlan {
	return &mergePlan{rec: rec, mode: MergeSquash, intoName: "main", baseTip: "b1", taskTip: "t1"}
}

func TestMergeMessages(t *testing.T) {
	rec := &record.Record{Task: "fix: bug #123", Branch: "wt/fix-bug-123"}
	for _, tc := range []struct {
		name  string
		plan  *mergePlan
		given string
		git   func(f *gittest.Fake)
		want  string
	}{
		{name: "the user's", plan: squashPlan(rec), given: "mine", want: "mine"},
		{name: "a merge, like git's", plan: &mergePlan{rec: rec, mode: MergeNoFF, intoName: "main"},
			want: "Merge branch 'wt/fix-bug-123' into main"},
		{name: "a squash of one commit keeps its message", plan: squashPlan(rec),
			git: func(f *gittest.Fake) {
				f.Expect("log", "--reverse", "--format=%s", "b1..t1", "--").Out("fix it\n")
				f.Expect("log", "-1", "--format=%B", "t1", "--").Out("fix it\n\nbecause\n")
			},
			want: "fix it\n\nbecause"},
		{name: "a squash of several is the task id and a line per commit", plan: squashPlan(rec),
			git: func(f *gittest.Fake) {
				f.Expect("log", "--reverse", "--format=%s", "b1..t1", "--").Out("one\ntwo\n")
			},
			want: "fix: bug #123\n\n* one\n* two"},
		{name: "a squash with a pull request, like GitHub's", plan: squashPlan(&record.Record{Task: "T", Branch: "wt/T", PR: &record.PR{Title: "Fix the bug", Number: 7}}),
			git: func(f *gittest.Fake) {
				f.Expect("log", "--reverse", "--format=%s", "b1..t1", "--").Out("one\n")
			},
			want: "Fix the bug (#7)\n\n* one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			if tc.git != nil {
				tc.git(f)
			}
			got, err := flowOn(f).mergeMessage(context.Background(), tc.plan, tc.given)
			if err != nil || got != tc.want {
				t.Fatalf("message %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
