// These tests protect gc --reclaim's rules (SPEC §20): when a task is
// idle enough for its build output to go, and that over wt.maxTotalSize
// the build output of idle tasks goes first, least recently used first,
// only until the tasks are under the limit.
package removal

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/inspect"
)

func TestTheIdleRule(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name             string
		access, activity time.Time
		after            time.Duration
		want             string // "" idle, else a part of the reason
	}{
		{"used 4 days ago", now.Add(-96 * time.Hour), time.Time{}, 72 * time.Hour, ""},
		{"exactly wt.reclaimAfter ago", now.Add(-72 * time.Hour), time.Time{}, 72 * time.Hour, ""},
		{"git wt used it 2h ago", now.Add(-2 * time.Hour), now.Add(-100 * time.Hour), 72 * time.Hour, "active 2h ago (wt.reclaimAfter 3d)"},
		{"the worktree changed an hour ago", now.Add(-100 * time.Hour), now.Add(-time.Hour), 72 * time.Hour, "active 1h ago"},
		{"a clock ahead of now", now.Add(time.Hour), time.Time{}, 72 * time.Hour, "active 0s ago"},
		{"wt.reclaimAfter 0: idle at once", now, now, 0, ""},
	} {
		got := notIdle(lastUse(tc.access, tc.activity), now, tc.after)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLastActivityIsTheNewestOfIndexReflogAndTopLevelEntries(t *testing.T) {
	root := t.TempDir()
	admin, dir := filepath.Join(root, "admin"), filepath.Join(root, "wt")
	os.MkdirAll(filepath.Join(admin, "logs"), 0o755)
	os.MkdirAll(filepath.Join(dir, "src", "deep"), 0o755)
	old := time.Now().Add(-240 * time.Hour).Truncate(time.Second)
	files := map[string]time.Time{
		filepath.Join(admin, "index"):        old,
		filepath.Join(admin, "logs", "HEAD"): old.Add(time.Hour),
		filepath.Join(dir, "README"):         old.Add(2 * time.Hour),
		filepath.Join(dir, "src"):            old.Add(3 * time.Hour),
		filepath.Join(dir, "src", "deep"):    old.Add(100 * time.Hour), // below the top level: not looked at
	}
	for p, at := range files {
		if _, err := os.Stat(p); err != nil {
			os.WriteFile(p, nil, 0o644)
		}
		os.Chtimes(p, at, at)
	}
	if got, want := lastActivity(admin, dir), old.Add(3*time.Hour); !got.Equal(want) {
		t.Fatalf("lastActivity = %v, want %v (src, the newest top-level entry)", got, want)
	}
	os.Chtimes(filepath.Join(admin, "index"), old.Add(5*time.Hour), old.Add(5*time.Hour))
	if got, want := lastActivity(admin, dir), old.Add(5*time.Hour); !got.Equal(want) {
		t.Fatalf("lastActivity = %v, want %v (the index, written by a git add)", got, want)
	}
}

// reclaimer frees half of each task's size, but for those in keep, and
// remembers the order it was asked in.
type reclaimer struct {
	asked []string
	keep  map[string]bool
}

func (r *reclaimer) reclaim(l *inspect.Live) (Reclaimed, bool) {
	name := l.Entry.Record.Task
	r.asked = append(r.asked, name)
	if r.keep[name] {
		return Reclaimed{Task: name, Outcome: "kept: in use by process 7 (sleep)"}, true
	}
	return Reclaimed{Task: name, Bytes: l.Size / 2, Outcome: OutcomeReclaimed}, true
}

func TestOverMaxTotalSizeBuildOutputGoesFirstUntilUnderTheLimit(t *testing.T) {
	// 4 tasks of 1 MiB, limit 3 MiB: the least recently used (d, then b)
	// each free 512 KiB; after those two, 3 MiB are left, still at the
	// limit, so c goes too; then 2.5 MiB is under it and a is left.
	ls := lives(1, 5, 3, 9)
	r := &reclaimer{}
	got := Retention{maxTotalSize: 3 << 20}.reclaimFirst(ls, 0, r.reclaim)
	if want := []string{"d", "b", "c"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("reclaimed %v, want %v", r.asked, want)
	}
	if len(got) != 3 || ls[3].Size != 512<<10 || ls[0].Size != 1<<20 {
		t.Fatalf("report %+v, sizes after %d %d", got, ls[3].Size, ls[0].Size)
	}
	// What is left then decides the pool and the tasks: under the limit,
	// retention removes nothing.
	re := &retirer{}
	Retention{maxTotalSize: 3 << 20}.apply(ls, 0, re.retire)
	if len(re.asked) != 0 {
		t.Fatalf("retention removed %v after the build output brought the tasks under the limit", re.asked)
	}
}

func TestAReclaimThatKeepsATaskFreesNothingAndTheNextGoes(t *testing.T) {
	ls := lives(1, 5, 3, 9)
	r := &reclaimer{keep: map[string]bool{"d": true}}
	got := Retention{maxTotalSize: 3 << 20}.reclaimFirst(ls, 1<<20, r.reclaim) // 1 MiB of pool: 5 MiB in all
	if want := []string{"d", "b", "c", "a"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("reclaimed %v, want %v: d kept frees nothing, and the pool counts", r.asked, want)
	}
	if got[0].Outcome != "kept: in use by process 7 (sleep)" || ls[3].Size != 1<<20 {
		t.Fatalf("the kept task: %+v, size %d", got[0], ls[3].Size)
	}
}

func TestNoReclaimWithoutMaxTotalSize(t *testing.T) {
	r := &reclaimer{}
	if got := (Retention{maxAge: time.Hour}).reclaimFirst(lives(100, 200), 0, r.reclaim); got != nil || r.asked != nil {
		t.Fatalf("wt.maxAge alone reclaimed %v", r.asked)
	}
}
