package cli

import (
	"context"
	"io"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// findTask locates the repository and the task that arg names, for a
// command that acts on one task; a record git-wt cannot read is an error.
func (e *env) findTask(ctx context.Context, command, arg string) (*task.Manager, *record.Entry, error) {
	m, err := e.manager(ctx, command)
	if err != nil {
		return nil, nil, err
	}
	ent, err := lookup(ctx, m, arg)
	return m, ent, err
}

// prefetchTask starts reading the records arg may name while the
// repository is located; the manager made next uses what it read.
func (e *env) prefetchTask(ctx context.Context, arg string) {
	if cwd, ok := e.earlyDir(); ok {
		e.prefetch = task.StartPrefetch(ctx, e.git, cwd, arg)
	}
}

// lookup finds the task arg names; a record git-wt cannot read is an
// error.
func lookup(ctx context.Context, m *task.Manager, arg string) (*record.Entry, error) {
	ent, err := m.Find(ctx, arg)
	if err != nil {
		return nil, err
	}
	if ent.Err != nil {
		return nil, task.Unreadable(ent)
	}
	return ent, nil
}

// toolOutput is where a command shows the output of the tools it runs
// (git push's progress, commit hooks, gh): stderr, or nowhere with --quiet.
func (e *env) toolOutput() io.Writer {
	if e.quiet {
		return nil
	}
	return e.stderr
}
