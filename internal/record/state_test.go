package record

import (
	"errors"
	"testing"
	"time"
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
		r := &Record{Task: "t", State: m[0], Signature: Signature{CreatorPID: 1}}
		err := r.Move(m[1], Owner{PID: 7})
		if !errors.Is(err, ErrIllegalMove) || r.State != m[0] || r.CreatorPID != 1 {
			t.Errorf("%s → %s: err %v, state %s, owner pid %d: want refused, record unchanged", m[0], m[1], err, r.State, r.CreatorPID)
		}
	}
}

// Who an owner is (SPEC §15): the same process whenever pid, host, boot,
// PID namespace and start agree, whenever it signed; another process if
// any of them differs. A move signs the record with the whole stamp.
func TestOwnerSameProcess(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	me := Owner{PID: 7, Host: "h", Boot: "b", PIDNS: "4026531836", Start: "123", At: at}
	tests := []struct {
		name   string
		change func(*Owner)
		same   bool
	}{
		{"itself", func(*Owner) {}, true},
		{"signed later", func(o *Owner) { o.At = at.Add(time.Hour) }, true},
		{"another pid", func(o *Owner) { o.PID = 8 }, false},
		{"another host", func(o *Owner) { o.Host = "g" }, false},
		{"another boot", func(o *Owner) { o.Boot = "c" }, false},
		{"another PID namespace", func(o *Owner) { o.PIDNS = "4026532000" }, false},
		{"another start (a reused pid)", func(o *Owner) { o.Start = "124" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := me
			tt.change(&other)
			if got := me.SameProcess(other); got != tt.same {
				t.Fatalf("SameProcess = %v, want %v", got, tt.same)
			}
		})
	}
	r := &Record{Task: "t", Slug: "t", Path: "/w/t", State: Creating}
	if err := r.Move(Initializing, me); err != nil {
		t.Fatal(err)
	}
	back, err := Decode("t", r.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if back.Owner() != me {
		t.Fatalf("the stamp did not survive the record's JSON: %+v, want %+v", back.Owner(), me)
	}
}

func TestInFlight(t *testing.T) {
	for s, want := range map[State]bool{
		Creating: true, Initializing: true, Merging: true, Syncing: true, Removing: true,
		Active: false, Adopted: false, Failed: false, Pooled: false,
	} {
		if got := s.InFlight(); got != want {
			t.Errorf("%s.InFlight() = %v, want %v", s, got, want)
		}
	}
}
