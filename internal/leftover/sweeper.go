// Package leftover finds and deletes what a killed git or git-wt left
// behind in git's own files (SPEC §7): stale lock files of the index, HEAD
// and refs, git's "initializing" worktree lock, an init's process group,
// and a record whose lock disagrees with git's.
package leftover

import "github.com/git-wt/git-wt/internal/task"

// Sweeper finds and deletes the leftovers of one repository.
type Sweeper struct {
	*task.Manager
}

// New returns the sweeper of m's repository.
func New(m *task.Manager) *Sweeper { return &Sweeper{Manager: m} }
