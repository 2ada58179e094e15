// Package removal removes tasks all or nothing (SPEC §7): rm, the
// retention policy that decides which tasks to remove, and the finishing
// of a removal that a killed process left half done.
package removal

import "github.com/git-wt/git-wt/internal/task"

// Remover removes the tasks of one repository.
type Remover struct {
	*task.Manager
}

// New returns the remover of m's tasks.
func New(m *task.Manager) *Remover { return &Remover{Manager: m} }
