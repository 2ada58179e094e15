package cli

import (
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/leftover"
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/policy"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/workflow"
)

// handlers are the command handlers of one repository's tasks, each
// built on the task core with the handlers it uses below it
// (docs/ARCHITECTURE.md draws the layers).
type handlers struct {
	inspect   *inspect.Inspector
	setup     *setup.Handler
	removal   *removal.Remover
	lifecycle *lifecycle.Handler
	workflow  *workflow.Flow
	policy    *policy.Doctor
	foreign   *policy.Foreign
	pool      *pool.Pool
}

// handlersOf wires the handlers of m's tasks; early (may be nil) holds
// the worktree statuses a command started before m was made.
func handlersOf(m *task.Manager, early *inspect.EarlyStatuses) *handlers {
	h := &handlers{inspect: inspect.New(m, early), setup: setup.New(m)}
	sweeper := leftover.New(m)
	h.removal = removal.New(m, h.inspect, sweeper)
	h.pool = pool.New(m, h.setup, h.removal)
	h.removal.Pool = h.pool
	h.removal.Gone = releaseClaimOf(m)
	h.lifecycle = lifecycle.New(m, h.removal, h.setup, h.inspect, sweeper, h.pool)
	h.workflow = workflow.New(m, h.removal, h.lifecycle, h.inspect, sweeper)
	h.policy = policy.New(m, h.removal, h.lifecycle, h.inspect, sweeper, h.pool)
	h.foreign = policy.NewForeign(m, h.inspect)
	return h
}

// handlers wires the handlers of m's tasks with what e started early.
func (e *env) handlers(m *task.Manager) *handlers { return handlersOf(m, e.early) }
