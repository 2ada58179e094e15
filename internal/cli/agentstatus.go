package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// agentStatus records what a runner's session hook reports on the task
// the payload's cwd lies in (SPEC §16). It never fails the runner: every
// problem is a line on stderr and exit 0; a payload outside any task, or
// a task in the middle of an operation, is left alone; a write that loses
// a race with another is dropped (the next report writes). Nothing goes
// to stdout: Gemini CLI reads it as JSON.
func (e *env) agentStatus(ctx context.Context, runner, event string) error {
	s, err := agents.ReadStatus(runner, event, e.stdin)
	if err != nil {
		e.warnf("agent-hook %s-status: %v", runner, err)
		return nil
	}
	if s.Cwd != "" {
		if err := os.Chdir(s.Cwd); err != nil {
			return nil // a folder gone: no task to report on
		}
	}
	early := e.startTaskHere(ctx)
	m, err := e.manager(ctx, "agent-hook")
	if err != nil {
		return nil // not in a repository
	}
	ent := taskHere(ctx, m, early)
	if ent == nil || ent.Record == nil || (ent.Record.State != record.Active && ent.Record.State != record.Adopted) {
		return nil
	}
	heartbeat(m, ent.Record) // an agent at work says the machine is alive (SPEC §18)
	var by agents.Runner
	if id, ok := proc.Caller(); ok {
		by = agents.Runner{PID: id.PID, Start: id.Start, Host: id.Host, Boot: id.Boot, PIDNS: id.PIDNS}
	}
	if !agents.Apply(ent.Record, s, time.Now().UTC().Round(0), by) {
		return nil
	}
	task.Checkpoint(ctx, "agent-status:save")
	if err := m.Save(ctx, ent); err != nil && !errors.Is(err, git.ErrStale) {
		e.warnf("agent-hook %s-status: cannot record the agent's state on task %q: %v", runner, ent.Record.Task, err)
	}
	return nil
}

// startTaskHere starts reading the record of the task the current
// directory is in, as its folder's name says (a task's folder is usually
// named for its slug), from the files alone: the read overlaps git
// config's, which confirms the repository. nil when the files do not say.
func (e *env) startTaskHere(ctx context.Context) *async.Value[[]record.Entry] {
	cwd, err := os.Getwd()
	found := git.Discover(cwd)
	if err != nil || found == nil {
		return nil
	}
	name := slug.Make(filepath.Base(found.Toplevel()))
	return async.Start(func() ([]record.Entry, error) {
		return (&record.Store{Git: e.git, Dir: cwd}).Get(ctx, name)
	})
}

// taskHere is the task whose worktree holds the current directory, or
// nil: the record early read (startTaskHere) when it is the one, else the
// one of the records whose path holds it.
func taskHere(ctx context.Context, m *task.Manager, early *async.Value[[]record.Entry]) *record.Entry {
	top := m.Repo.Toplevel
	if early == nil {
		early = async.Start(func() ([]record.Entry, error) { return m.Store.Get(ctx, slug.Make(filepath.Base(top))) })
	}
	if got, err := early.Get(); err == nil {
		for i := range got {
			if rec := got[i].Record; rec != nil && (rec.Path == top || sameDir(rec.Path, top)) {
				return &got[i]
			}
		}
	}
	if ent, err := m.Find(ctx, "."); err == nil {
		return ent
	}
	return nil
}

// sameDir reports whether a and b are one folder, symlinks resolved.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
