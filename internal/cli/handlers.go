package cli

import (
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/policy"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/workflow"
)

// The command handlers, each built on the tasks of one repository with
// the handlers it uses below it (docs/ARCHITECTURE.md draws the layers).

func removalOf(m *task.Manager) *removal.Remover { return removal.New(m) }

func lifecycleOf(m *task.Manager) *lifecycle.Handler {
	return lifecycle.New(m, removalOf(m), setup.New(m))
}

func workflowOf(m *task.Manager) *workflow.Flow {
	r := removalOf(m)
	return workflow.New(m, r, lifecycle.New(m, r, setup.New(m)))
}

func policyOf(m *task.Manager) *policy.Doctor {
	r := removalOf(m)
	return policy.New(m, r, lifecycle.New(m, r, setup.New(m)))
}
