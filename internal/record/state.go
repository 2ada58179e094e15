package record

import (
	"errors"
	"fmt"
	"slices"
)

// Owner names the process that drives a task's current state change (pid,
// host and start time: pids are reused). The JSON keeps the creator_*
// names of the first version, when only creation had an owner.
type Owner struct {
	PID   int
	Host  string
	Start string
}

// Owner is who drove the record's last state change.
func (r *Record) Owner() Owner {
	return Owner{PID: r.CreatorPID, Host: r.CreatorHost, Start: r.CreatorStart}
}

// Stamp signs the record with its new owner: other processes then see a
// live owner and wait, and a repair sees a dead one.
func (r *Record) Stamp(o Owner) {
	r.CreatorPID, r.CreatorHost, r.CreatorStart = o.PID, o.Host, o.Start
}

// ErrIllegalMove marks a state change the lifecycle does not allow.
var ErrIllegalMove = errors.New("illegal state change")

// moves is the lifecycle of SPEC §14: for each state, where a task may go
// next. Removed is the deletion of the record. Creating may also be
// entered again from a task whose folder is gone or whose creation stopped
// (`new` makes it again, SPEC §2), and merging from a merge whose process
// died (`merge` again takes over), and removing from a removal whose
// process died (the next rm or doctor --fix finishes it); adopted behaves
// as active. A stuck creation is rolled back through removing too, so
// that its rollback is checked as any removal is.
var moves = map[State][]State{
	Creating:     {Creating, Initializing, Active, Failed, Removing, Removed},
	Initializing: {Creating, Active, Failed, Removing, Removed},
	Active:       {Creating, Initializing, Merging, Syncing, Removing},
	Adopted:      {Creating, Merging, Syncing, Removing},
	Failed:       {Creating, Initializing, Removing},
	Merging:      {Merging, Active, Adopted, Removing, Removed},
	Syncing:      {Active, Adopted},
	Removing:     {Removing, Active, Adopted, Failed, Removed},
	Pooled:       {Creating, Removed},
}

// Underway says whether a task in state s is in the middle of a change
// that a process drives (the record's owner): creating, initializing,
// removing, merging or syncing.
func (s State) Underway() bool {
	switch s {
	case Creating, Initializing, Removing, Merging, Syncing:
		return true
	}
	return false
}

// CanMove says whether a task in state from may go to state to.
func CanMove(from, to State) bool {
	return slices.Contains(moves[from], to)
}

// Move is the one writer of a record's state: it refuses a move the
// lifecycle does not allow, and signs the record with the owner of the
// new state.
func (r *Record) Move(to State, owner Owner) error {
	if !CanMove(r.State, to) {
		return fmt.Errorf("%w: task %q cannot go from %s to %s", ErrIllegalMove, r.Task, r.State, to)
	}
	if r.State == Merging && to != Merging {
		r.MergeTip = "" // the merge is over, or given up
	}
	r.State = to
	r.Stamp(owner)
	return nil
}
