// These tests protect which pull request gc --merged takes for a task's
// (SPEC §19): never one of an earlier task of the same branch name.
package workflow

import (
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/record"
)

func TestNamesTaskOnlyAPullRequestOpenedAfterTheTask(t *testing.T) {
	made := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	before, after := made.Add(-time.Hour), made.Add(time.Hour)
	task := &record.Record{Task: "T", Branch: "wt/T", CreatedAt: made}
	recorded := &record.Record{Task: "T", Branch: "wt/T", CreatedAt: made, PR: &record.PR{Number: 7}}
	listed := func(n int, head string, created *time.Time) *gh.Listed {
		return &gh.Listed{PR: record.PR{Number: n, CreatedAt: created}, HeadBranch: head}
	}
	for _, tc := range []struct {
		name string
		rec  *record.Record
		l    *gh.Listed
		want bool
	}{
		{"its branch, opened after the task", task, listed(3, "wt/T", &after), true},
		{"its branch, opened before: an earlier task's", task, listed(3, "wt/T", &before), false},
		{"its branch, no time said", task, listed(3, "wt/T", nil), false},
		{"another branch", task, listed(3, "wt/U", &after), false},
		{"the number recorded, opened before (new --pr)", recorded, listed(7, "feature", &before), true},
		{"another number than the one recorded", recorded, listed(8, "wt/T", &after), false},
	} {
		if got := namesTask(tc.rec, tc.l); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
