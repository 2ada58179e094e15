// Package setup readies a new worktree for work (SPEC §6): it copies the
// ignored files the task needs from the main worktree and runs the init
// commands, trusted or not, recording how it went in the task's record.
package setup

import "github.com/git-wt/git-wt/internal/task"

// Handler sets up the worktrees of one repository's tasks.
type Handler struct {
	*task.Manager
}

// New returns the setup of m's tasks.
func New(m *task.Manager) *Handler { return &Handler{Manager: m} }
