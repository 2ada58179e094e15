package claim

import (
	"time"

	"github.com/git-wt/git-wt/internal/git"
)

// GCView is what gc sees besides a claim: this machine, its clock, and
// the answers it asks of this clone (SPEC §18, as §19 revises it).
type GCView struct {
	Remote string        // the claim remote's name
	Now    time.Time     // this machine's clock
	Grace  time.Duration // wt.orphanGrace
	// Took reports whether this clone took the claim (Remote.Took): its
	// machine id and the proof of its key, not the id alone.
	Took func(*Held) bool
	// TaskHere reports whether this clone has the task.
	TaskHere func(task string) bool
	// Merged reports whether the commit is merged into the remote's
	// default branch.
	Merged func(commit string) bool
	// Stale reports whether this machine has seen the claim unchanged
	// for wt.claimTTL.
	Stale func(*Held) bool
}

// Release is why gc releases the claim h, "" when it stays: a claim this
// clone took (by its key's proof: a planted machine id is not enough) of
// a task gone here, once past wt.orphanGrace by this machine's own clock,
// which wrote it (a new that claimed but has not yet made its record is
// left alone); or any claim whose own recorded
// branch tip is merged and that nobody refreshed for wt.claimTTL. Never
// because a ref of the claim's branch name is merged here: that may be
// an earlier task's of the same name.
func (v GCView) Release(h *Held) string {
	switch {
	case h.Released, h.Corrupt != "": // a corrupt claim is never acted on
		return ""
	case v.Took(h) && v.Now.Sub(h.HeartbeatAt) >= v.Grace && !v.TaskHere(h.Task):
		return "the task is gone here"
	// The tip is another machine's word: it reaches git only as an id.
	case git.IsObjectID(h.Tip) && v.Merged(h.Tip) && v.Stale(h):
		return "its branch tip " + h.Tip[:12] + " is merged into " + v.Remote + "'s default branch and nobody refreshed the claim for wt.claimTTL"
	}
	return ""
}
