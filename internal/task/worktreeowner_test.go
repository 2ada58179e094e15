package task

import (
	"testing"

	"github.com/git-wt/git-wt/internal/record"
)

// A worktree is another task's when another record names its path, or
// when it has another task's branch checked out; a task's own worktree
// moved on to a branch of nobody's, or detached, is still its own.
func TestOtherOwner(t *testing.T) {
	a := &record.Record{Task: "a", Slug: "a", Branch: "wt/a", Path: "/base/a"}
	b := &record.Record{Task: "b", Slug: "b", Branch: "wt/b", Path: "/base/b"}
	atB := &record.Record{Task: "a", Slug: "a", Branch: "wt/a", Path: "/base/b"}
	for _, tc := range []struct {
		name    string
		rec     *record.Record
		branch  string
		records []*record.Record
		other   bool
	}{
		{name: "its own, on its branch", rec: a, branch: "refs/heads/wt/a", records: []*record.Record{a, b}},
		{name: "its own, detached", rec: a, records: []*record.Record{a, b}},
		{name: "its own, on a branch made by hand", rec: a, branch: "refs/heads/by-hand", records: []*record.Record{a, b}},
		{name: "the only record", rec: a, branch: "refs/heads/wt/a", records: []*record.Record{a}},
		{name: "an unreadable record beside it", rec: a, branch: "refs/heads/wt/a", records: []*record.Record{a, nil}},
		{name: "another record names the path", rec: atB, branch: "refs/heads/wt/b", records: []*record.Record{atB, b}, other: true},
		{name: "another record names the path, detached", rec: atB, records: []*record.Record{atB, b}, other: true},
		{name: "another task's branch checked out", rec: a, branch: "refs/heads/wt/b", records: []*record.Record{a, b}, other: true},
	} {
		if got := otherOwner(tc.rec, tc.branch, tc.records) != ""; got != tc.other {
			t.Errorf("%s: another task's %v, want %v (%q)", tc.name, got, tc.other, otherOwner(tc.rec, tc.branch, tc.records))
		}
	}
}
