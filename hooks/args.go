package hooks

import (
	"errors"
	"fmt"
	"strings"
)

// Work is what git-wt's part of a hook has to do.
type Work int

// The work a hook can ask for.
const (
	NoWork        Work = iota
	AdoptWorktree      // post-checkout in a worktree git may have just made
	CleanupMerged      // post-merge after a merge that committed
)

// Decide reads a hook's name and git's arguments (`post-checkout PREV NEW
// FLAG`, `post-merge SQUASH`) and says what git-wt's part has to do. It
// starts nothing and reads nothing: post-checkout fires on every checkout,
// and with nothing to do it must cost nothing. Arguments git never passes
// are an error.
func Decide(args []string) (Work, error) {
	if len(args) == 0 {
		return NoWork, errors.New("a hook name is needed (post-checkout, post-merge)")
	}
	switch name := args[0]; {
	case name == "post-checkout" && len(args) == 4:
		if newWorktree(args[1], args[2], args[3]) {
			return AdoptWorktree, nil
		}
		return NoWork, nil
	case name == "post-merge" && len(args) == 2:
		if args[1] == "1" { // a squash merge has committed nothing yet
			return NoWork, nil
		}
		return CleanupMerged, nil
	}
	return NoWork, fmt.Errorf("unknown hook or wrong arguments: %q", args)
}

// newWorktree tells from post-checkout's arguments alone whether git may
// have just made a new worktree: the previous HEAD is all zeros (compared
// as such: SHA-256 repositories have longer ids), the new HEAD is an object
// id of the same length, and the flag is 1. A `git clone` looks the same;
// the caller tells the two apart.
func newWorktree(prev, head, flag string) bool {
	return flag == "1" && len(prev) >= 40 && strings.Trim(prev, "0") == "" &&
		len(head) == len(prev) && strings.Trim(strings.ToLower(head), "0123456789abcdef") == ""
}
