package cli

import (
	"github.com/git-wt/git-wt/internal/policy"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/workflow"
)

// The command handlers, each built on the tasks of one repository with
// the handlers it uses below it (docs/ARCHITECTURE.md draws the layers).

func workflowOf(m *task.Manager) *workflow.Flow { return workflow.New(m) }

func policyOf(m *task.Manager) *policy.Doctor { return policy.New(m) }
