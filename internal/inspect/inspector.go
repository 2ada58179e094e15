// Package inspect reads what git says about tasks without changing
// anything: each worktree's status, ahead/behind counts, whether a task's
// commits are merged (SPEC §7), and the listing that list and gc show.
package inspect

import "github.com/git-wt/git-wt/internal/task"

// Inspector reads the state of one repository's tasks.
type Inspector struct {
	*task.Manager
	early *EarlyStatuses // statuses started early, used by Inspect
}

// New returns the inspector of m's tasks; early (may be nil) holds
// statuses started before m was made.
func New(m *task.Manager, early *EarlyStatuses) *Inspector {
	return &Inspector{Manager: m, early: early}
}
