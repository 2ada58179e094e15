// These tests protect when a task's operation counts as abandoned (SPEC
// §15): its owner proven dead, or unseen and silent for wt.orphanGrace —
// never an owner that lives, nor one unseen that signed lately.
package task

import (
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestAbandoned(t *testing.T) {
	gone := platform.ExitedPID(t)
	m := &Manager{Settings: &settings.Settings{OrphanGrace: 10 * time.Minute}}
	now := time.Now().UTC()
	me := Self()
	dead := me
	dead.PID, dead.Start = gone, "1"
	unseen := me // on another host: every system's table says unknown (a PID namespace is Linux's)
	unseen.Host = "another host"
	tests := []struct {
		name  string
		owner record.Owner
		at    time.Time
		want  bool
	}{
		{"this process, long silent", me, now.Add(-time.Hour), false},
		{"unseen, signed a minute ago", unseen, now.Add(-time.Minute), false},
		{"unseen, silent past the grace", unseen, now.Add(-11 * time.Minute), true},
		{"unseen, never signed a time (an older git-wt): counted from creation", unseen, time.Time{}, true},
	}
	if proc.Check(OwnerID(dead)) == proc.Dead { // where this namespace's table is readable
		tests = append(tests, struct {
			name  string
			owner record.Owner
			at    time.Time
			want  bool
		}{"proven dead, signed just now", dead, now, true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{Task: "t", State: record.Creating, CreatedAt: now.Add(-time.Hour)}
			o := tt.owner
			o.At = tt.at
			rec.Stamp(o)
			if got := m.Abandoned(rec, proc.Check(Owner(rec))); got != tt.want {
				t.Fatalf("Abandoned = %v, want %v", got, tt.want)
			}
		})
	}
}
