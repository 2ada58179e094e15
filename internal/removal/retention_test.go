// These tests protect the retention policy's rules (SPEC §7): which tasks
// it may remove, in which order, and when a limit is met. They run
// without git: the removal itself is a stand-in.
package removal

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/record"
)

// lives are tasks named by their idle time in hours, each of size 1 MiB,
// in the order given (not the order of use).
func lives(idleHours ...int) []inspect.Live {
	var out []inspect.Live
	for i, h := range idleHours {
		name := string(rune('a' + i))
		out = append(out, inspect.Live{
			Entry:      record.Entry{Record: &record.Record{Task: name, Path: "/wt/" + name, State: record.Active}},
			Exists:     true,
			LastAccess: time.Now().Add(-time.Duration(h) * time.Hour),
			Size:       1 << 20,
		})
	}
	return out
}

// retirer removes every task it is asked to but those in keep, and
// remembers the order it was asked in.
type retirer struct {
	asked []string
	keep  map[string]bool
}

func (r *retirer) retire(l *inspect.Live) string {
	r.asked = append(r.asked, l.Entry.Record.Task)
	if r.keep[l.Entry.Record.Task] {
		return "kept: dirty"
	}
	return "removed"
}

func TestRetentionRemovesTheLeastRecentlyUsedFirst(t *testing.T) {
	r := &retirer{}
	got := Retention{maxCount: 2}.apply(lives(1, 5, 3, 9), 0, r.retire)
	if want := []string{"d", "b"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("retired %v, want %v (least recently used first, until 2 are left)", r.asked, want)
	}
	if len(got) != 2 || !strings.Contains(got[0].Reason, "wt.maxCount 2") {
		t.Fatalf("report %+v", got)
	}
}

func TestRetentionCountsATaskItKeeps(t *testing.T) {
	r := &retirer{keep: map[string]bool{"d": true}}
	Retention{maxCount: 2}.apply(lives(1, 5, 3, 9), 0, r.retire)
	// d is kept (dirty): 4 tasks remain after it, so b and c must go.
	if want := []string{"d", "b", "c"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("retired %v, want %v", r.asked, want)
	}
}

func TestRetentionLeavesTasksThatAreNotSettled(t *testing.T) {
	ls := lives(9, 8, 7, 6)
	ls[0].Entry.Record.State = record.Creating
	ls[1].Entry.Record.State = record.Removing
	ls[2].Exists = false
	ls = append(ls, inspect.Live{Entry: record.Entry{Slug: "broken"}, Exists: true}) // an unreadable record
	r := &retirer{}
	Retention{maxAge: time.Hour}.apply(ls, 0, r.retire)
	if want := []string{"d"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("retired %v, want only the active task with a worktree: %v", r.asked, want)
	}
}

func TestRetentionLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      Retention
		idle   []int
		retire []string
		reason string
	}{
		{"max age", Retention{maxAge: 4 * time.Hour}, []int{1, 5, 3, 9}, []string{"d", "b"}, "wt.maxAge 4h"},
		{"max total size", Retention{maxTotalSize: 3 << 20}, []int{1, 5, 3, 9}, []string{"d", "b"}, "wt.maxTotalSize"},
		{"under every limit", Retention{maxCount: 10, maxAge: 100 * time.Hour}, []int{1, 5}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &retirer{}
			got := tc.p.apply(lives(tc.idle...), 0, r.retire)
			if !reflect.DeepEqual(r.asked, tc.retire) {
				t.Fatalf("retired %v, want %v", r.asked, tc.retire)
			}
			if len(got) > 0 && !strings.Contains(got[0].Reason, tc.reason) {
				t.Fatalf("reason %q, want it to name %q", got[0].Reason, tc.reason)
			}
		})
	}
}

func TestNoRetentionPolicyIsNone(t *testing.T) {
	if !(Retention{}).none() || (Retention{maxCount: 1}).none() {
		t.Fatal("a policy is none exactly when no limit is set")
	}
}

// The warm pool's entries count toward wt.maxTotalSize: what they take
// that the drain could not free retires tasks too.
func TestRetentionCountsThePoolTowardTheTotalSize(t *testing.T) {
	r := &retirer{}
	Retention{maxTotalSize: 3 << 20}.apply(lives(1, 5), 0, r.retire)
	if len(r.asked) != 0 {
		t.Fatalf("retired %v with 2 MiB of tasks under a 3 MiB limit", r.asked)
	}
	Retention{maxTotalSize: 3 << 20}.apply(lives(1, 5), 1<<20, r.retire)
	if want := []string{"b"}; !reflect.DeepEqual(r.asked, want) {
		t.Fatalf("retired %v, want %v: 1 MiB of pool makes 3 MiB", r.asked, want)
	}
}
