// Package policy keeps a repository's tasks in order: doctor finds where
// records, worktrees, branches and git's own files disagree and repairs
// what is safe to; gc removes orphans and applies the retention policy.
package policy

import "github.com/git-wt/git-wt/internal/task"

// Doctor diagnoses and repairs the tasks of one repository.
type Doctor struct {
	*task.Manager
}

// New returns the doctor of m's tasks.
func New(m *task.Manager) *Doctor { return &Doctor{Manager: m} }
