package record

import (
	"errors"
	"testing"
)

// The lifecycle of SPEC §14: the moves it allows, the ones it refuses, and
// the owner every move signs.
func TestMove(t *testing.T) {
	allowed := [][2]State{
		{Creating, Initializing}, {Initializing, Active}, {Initializing, Failed},
		{Creating, Active}, {Active, Merging}, {Active, Syncing}, {Active, Removing},
		{Merging, Removed}, {Merging, Active}, {Syncing, Active}, {Removing, Removed},
		{Removing, Active}, {Failed, Initializing}, {Failed, Removing},
		{Adopted, Removing}, {Pooled, Creating}, {Pooled, Removed},
	}
	for _, m := range allowed {
		r := &Record{Task: "t", State: m[0]}
		if err := r.Move(m[1], Owner{PID: 7, Host: "h", Start: "s"}); err != nil {
			t.Errorf("%s → %s refused: %v", m[0], m[1], err)
			continue
		}
		if r.State != m[1] || r.Owner() != (Owner{PID: 7, Host: "h", Start: "s"}) {
			t.Errorf("%s → %s: state %s, owner %+v", m[0], m[1], r.State, r.Owner())
		}
	}
	refused := [][2]State{
		{Active, Active}, {Active, Removed}, {Active, Failed}, {Merging, Syncing},
		{Syncing, Removing}, {Failed, Active}, {Adopted, Initializing}, {Pooled, Active},
		{Removing, Merging}, {Creating, Merging},
	}
	for _, m := range refused {
		r := &Record{Task: "t", State: m[0], CreatorPID: 1}
		err := r.Move(m[1], Owner{PID: 7})
		if !errors.Is(err, ErrIllegalMove) || r.State != m[0] || r.CreatorPID != 1 {
			t.Errorf("%s → %s: err %v, state %s, owner pid %d: want refused, record unchanged", m[0], m[1], err, r.State, r.CreatorPID)
		}
	}
}

// The states a process drives (its owner may be working on the task right
// now) against those a task rests in.
func TestUnderway(t *testing.T) {
	for s, want := range map[State]bool{
		Creating: true, Initializing: true, Removing: true, Merging: true, Syncing: true,
		Active: false, Adopted: false, Failed: false, Pooled: false,
	} {
		if got := s.Underway(); got != want {
			t.Errorf("%s.Underway() = %v, want %v", s, got, want)
		}
	}
}
