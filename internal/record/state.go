package record

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Owner names the process that drives a task's current state change (pid,
// host, boot, PID namespace and start time: pids are reused, and counted
// per namespace) and when it signed. The JSON keeps the creator_* names of
// the first version, when only creation had an owner.
type Owner struct {
	PID   int
	Host  string
	Boot  string
	PIDNS string
	Start string
	At    time.Time
}

// Signature is an owner as a record or a pool entry stores it (the JSON
// keeps the creator_* names of the first version).
type Signature struct {
	CreatorPID   int    `json:"creator_pid"`
	CreatorHost  string `json:"creator_host"`
	CreatorStart string `json:"creator_start"`
	// CreatorBoot and CreatorPIDNS place the owner's pid (SPEC §15): the
	// host's boot and the PID namespace it is counted in. A process that
	// cannot match them cannot prove the owner dead.
	CreatorBoot  string `json:"creator_boot,omitempty"`
	CreatorPIDNS string `json:"creator_pidns,omitempty"`
	// ChangedAt is when the owner last signed: a process that cannot tell
	// whether the owner lives counts its operation in flight until
	// wt.orphanGrace after it.
	ChangedAt time.Time `json:"changed_at,omitzero"`
}

// Owner is who signed last: for a record, who drove its last state
// change; for a pool entry, the fill that made it.
func (s *Signature) Owner() Owner {
	return Owner{PID: s.CreatorPID, Host: s.CreatorHost, Boot: s.CreatorBoot, PIDNS: s.CreatorPIDNS, Start: s.CreatorStart, At: s.ChangedAt}
}

// Stamp signs with a new owner: other processes then see a live owner
// and wait, and a repair sees a dead one.
func (s *Signature) Stamp(o Owner) {
	s.CreatorPID, s.CreatorHost, s.CreatorStart = o.PID, o.Host, o.Start
	s.CreatorBoot, s.CreatorPIDNS, s.ChangedAt = o.Boot, o.PIDNS, o.At
}

// InFlight says whether a task in state s is in the middle of an
// operation that a live process drives (its owner), as opposed to at rest.
func (s State) InFlight() bool {
	switch s {
	case Creating, Initializing, Merging, Syncing, Removing:
		return true
	}
	return false
}

// SameProcess says whether two owners are one process: the same pid on
// the same host, boot and PID namespace, started at the same time (when
// it signed is not part of who it is).
func (o Owner) SameProcess(p Owner) bool {
	return o.PID == p.PID && o.Host == p.Host && o.Boot == p.Boot && o.PIDNS == p.PIDNS && o.Start == p.Start
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
		r.MergeTip, r.MergeInto = "", "" // the merge is over, or given up
	}
	r.State = to
	r.Stamp(owner)
	return nil
}
