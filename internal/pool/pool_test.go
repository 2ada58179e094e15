// These tests protect the pool's pure decisions: which entries a `new`
// tries first, and which entries gc drains as stale.
package pool

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

func TestEntriesAtTheBaseCommitAreOfferedFirst(t *testing.T) {
	item := func(id, commit string) record.PoolItem {
		return record.PoolItem{ID: id, Entry: &record.PoolEntry{ID: id, Commit: commit}}
	}
	for _, tc := range []struct {
		name   string
		items  []record.PoolItem
		commit string
		want   []string
	}{
		{"at commit moves ahead, each kind keeps its order",
			[]record.PoolItem{item("a", "old"), item("b", "c1"), item("c", "old"), item("d", "c1")}, "c1", []string{"b", "d", "a", "c"}},
		{"none at commit: order kept", []record.PoolItem{item("a", "x"), item("b", "y")}, "c1", []string{"a", "b"}},
		{"all at commit: order kept", []record.PoolItem{item("a", "c1"), item("b", "c1")}, "c1", []string{"a", "b"}},
		{"one entry", []record.PoolItem{item("a", "x")}, "c1", []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			atCommitFirst(tc.items, tc.commit)
			var got []string
			for _, it := range tc.items {
				got = append(got, it.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("offered %v, want %v", got, tc.want)
			}
		})
	}
}

func TestGCDrainsAnEntryOnlyPastPoolMaxAgeOrPoolMaxBehind(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name      string
		age       time.Duration
		maxAge    time.Duration
		maxBehind int
		behind    int
		want      bool
	}{
		{"older than wt.poolMaxAge", 3 * day, 2 * day, 0, 0, true},
		{"younger than wt.poolMaxAge", day, 2 * day, 0, 0, false},
		{"no wt.poolMaxAge: age never decides", 300 * day, 0, 0, 0, false},
		{"more behind than wt.poolMaxBehind", time.Minute, 0, 10, 11, true},
		{"exactly wt.poolMaxBehind behind is kept", time.Minute, 0, 10, 10, false},
		{"no wt.poolMaxBehind: behind never decides", time.Minute, 0, 0, 1000, false},
		{"behind unknown (-1) is never stale", time.Minute, 2 * day, 10, -1, false},
		{"either limit is enough", 3 * day, 2 * day, 10, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tooOldOrBehind(tc.age, tc.maxAge, tc.maxBehind, func() int { return tc.behind }); got != tc.want {
				t.Errorf("stale = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAnEntryOldEnoughIsStaleWithoutAskingGitHowFarBehind(t *testing.T) {
	asked := false
	if !tooOldOrBehind(3*time.Hour, time.Hour, 5, func() int { asked = true; return 0 }) {
		t.Fatal("an entry past wt.poolMaxAge was not stale")
	}
	if asked {
		t.Error("git was asked how far behind an entry already stale by age is")
	}
}

func TestNewClaimsOnlyWholeEntriesInThePoolFolderOfNow(t *testing.T) {
	base := t.TempDir()
	p := New(&task.Manager{Settings: &settings.Settings{BaseDir: base}, Place: &place.Rules{}}, nil, nil)
	in := filepath.Join(p.Folder(), "e1")
	for _, tc := range []struct {
		name string
		it   record.PoolItem
		want bool
	}{
		{"ready in the pool folder", record.PoolItem{Entry: &record.PoolEntry{Path: in, Ready: true}}, true},
		{"still being made", record.PoolItem{Entry: &record.PoolEntry{Path: in}}, false},
		{"its ref unreadable", record.PoolItem{Entry: &record.PoolEntry{Path: in, Ready: true}, Err: errors.New("bad json")}, false},
		{"in an earlier wt.baseDir's pool folder", record.PoolItem{Entry: &record.PoolEntry{Path: filepath.Join(t.TempDir(), place.PoolDir, "e1"), Ready: true}}, false},
		{"below an entry, not an entry", record.PoolItem{Entry: &record.PoolEntry{Path: filepath.Join(in, "sub"), Ready: true}}, false},
		{"the pool folder itself", record.PoolItem{Entry: &record.PoolEntry{Path: p.Folder(), Ready: true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.ready(&tc.it); got != tc.want {
				t.Errorf("may be claimed = %v, want %v", got, tc.want)
			}
		})
	}
}
