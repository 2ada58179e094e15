// Package workflow is what an agent does with its task once it exists:
// commit, push, open a pull request, merge it back, run a command in it.
package workflow

import "github.com/git-wt/git-wt/internal/task"

// Flow runs the workflow commands on the tasks of one repository.
type Flow struct {
	*task.Manager
}

// New returns the workflow commands for m's tasks.
func New(m *task.Manager) *Flow { return &Flow{Manager: m} }
