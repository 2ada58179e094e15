// These tests protect SPEC §20's verdict: safe only when nothing would be
// lost and nobody disturbed — a process that cannot be seen is never
// "none" (SPEC §15) — and otherwise the first reason, in the documented
// order and words.
package inspect

import (
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestJudgeSaysSafeOrTheFirstReasonNot(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	idle := now.Add(-8 * 24 * time.Hour)
	safe := Facts{InUse: InUseNone, LastActivity: idle}
	with := func(change func(f *Facts)) Facts {
		f := safe
		change(&f)
		return f
	}
	for _, c := range []struct {
		name string
		f    Facts
		want string
	}{
		{"clean, pushed, idle, unused, unlocked", safe, "safe"},
		{"the main worktree, however clean", with(func(f *Facts) { f.Main = true }), "main"},
		{"its folder is gone", with(func(f *Facts) { f.Missing = true; f.Dirty = 2 }), "missing"},
		{"a pool entry", with(func(f *Facts) { f.Pooled = true }), "pooled"},
		{"a task being removed", with(func(f *Facts) { f.Task = &record.Record{State: record.Removing} }), "removing"},
		{"a task that failed", with(func(f *Facts) { f.Task = &record.Record{State: record.Failed} }), "failed"},
		{"an active task", with(func(f *Facts) { f.Task = &record.Record{State: record.Active} }), "safe"},
		{"an adopted task", with(func(f *Facts) { f.Task = &record.Record{State: record.Adopted} }), "safe"},
		{"dirty", with(func(f *Facts) { f.Dirty = 3 }), "dirty 3"},
		{"status failed", with(func(f *Facts) { f.Dirty = -1 }), "dirty ?"},
		{"unpushed", with(func(f *Facts) { f.Unpushed = 2 }), "unpushed 2"},
		{"unpushed unknown", with(func(f *Facts) { f.Unpushed = -1 }), "unpushed ?"},
		{"dirty comes before unpushed", with(func(f *Facts) { f.Dirty = 1; f.Unpushed = 2 }), "dirty 1"},
		{"in use", with(func(f *Facts) { f.InUse = InUseAlive }), "in use"},
		{"processes unknown", with(func(f *Facts) { f.InUse = InUseUnknown }), "cannot see"},
		{"processes not looked at", with(func(f *Facts) { f.InUse = "" }), "cannot see"},
		{"another worktree inside it", with(func(f *Facts) { f.Holds = "/w/.claude/worktrees/x" }), "holds a worktree"},
		{"unpushed comes before holding a worktree", with(func(f *Facts) { f.Unpushed = 1; f.Holds = "/w/x" }), "unpushed 1"},
		{"a file system mounted in it", with(func(f *Facts) { f.Mount = "/w/data" }), "holds a mount"},
		{"holding a worktree comes before in use", with(func(f *Facts) { f.Holds = "/w/x"; f.InUse = InUseAlive }), "holds a worktree"},
		{"unpushed comes before in use", with(func(f *Facts) { f.Unpushed = 1; f.InUse = InUseAlive }), "unpushed 1"},
		{"locked", with(func(f *Facts) { f.Locked = true }), "locked"},
		{"in use comes before locked", with(func(f *Facts) { f.Locked = true; f.InUse = InUseUnknown }), "cannot see"},
		{"used two hours ago", with(func(f *Facts) { f.LastActivity = now.Add(-2 * time.Hour) }), "active 2h ago"},
		{"locked comes before active", with(func(f *Facts) { f.Locked = true; f.LastActivity = now }), "locked"},
		{"a clock ahead of this one", with(func(f *Facts) { f.LastActivity = now.Add(time.Hour) }), "active 0s ago"},
		{"nothing of it could be read", with(func(f *Facts) { f.LastActivity = time.Time{} }), "active ?"},
	} {
		if got := Judge(c.f, now, 7*24*time.Hour); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReachableInCountsEachCommitOfTheGraphOnce(t *testing.T) {
	// d merges b and c, both on a; e is another head's; x is outside.
	graph := map[string][]string{"d": {"b", "c"}, "b": {"a"}, "c": {"a"}, "a": {"x"}, "e": {"a"}}
	for head, want := range map[string]int{"d": 4, "b": 2, "e": 2, "x": 0, "absent": 0} {
		if got := reachableIn(graph, head); got != want {
			t.Errorf("from %s: %d, want %d", head, got, want)
		}
	}
}

// Just before gc --foreign removes a worktree, an ignored file counts as
// work unless a pattern file only the worktree's users or the user can
// write ignores it: not the common dir's info/exclude, which every
// worktree's agent can write.
func TestOwnIgnoreSourceTrustsOnlyTheWorktreesGitignoresAndTheUsers(t *testing.T) {
	// Absolute paths of this system (a volume on Windows).
	dir, common := platform.Abs("/src/app.feat"), platform.Abs("/src/app/.git")
	for _, tc := range []struct {
		source string
		own    bool
	}{
		{".gitignore", true},
		{"sub/dir/.gitignore", true},
		{platform.Abs("/home/u/.config/git/ignore"), true}, // the user's core.excludesFile
		{platform.Abs("/src/app/.git/info/exclude"), false},
		{platform.Abs("/src/app/.git/worktrees/app.feat/info/exclude"), false},
		{platform.Abs("/src/app.feat/patterns"), false}, // a core.excludesFile in the worktree: its agent's
		{"../app/.gitignore", false},
		{"notes/ignore", false},
		{"", false}, // git named no pattern
	} {
		if got := ownIgnoreSource(tc.source, dir, common); got != tc.own {
			t.Errorf("ownIgnoreSource(%q) = %v, want %v", tc.source, got, tc.own)
		}
	}
}
