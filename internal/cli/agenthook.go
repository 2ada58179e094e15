package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
)

func agentHookCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "agent-hook",
		Usage:     "what an agent runner's worktree and session hooks call (git wt agent-setup writes them); reads the runner's JSON on stdin",
		ArgsUsage: "claude-create|claude-remove|codex-remove|RUNNER-status [EVENT]",
		Description: "claude-create makes (or resumes) the task the payload names, as git wt new does, and " +
			"prints only its path. claude-remove removes the task whose worktree the payload names, as " +
			"git wt rm does and never with --force: a dirty, locked or in-use task, or a branch with " +
			"unmerged commits, is kept with a warning and exit 0, so that the runner never deletes it " +
			"itself. Only a payload that cannot be read exits non-zero. codex-remove is claude-remove for " +
			"the Codex app's cleanup script: the worktree is $CODEX_WORKTREE_PATH (else the current " +
			"folder), and there is no payload. RUNNER-status (claude, codex, gemini, " +
			"copilot, opencode) records on the task the payload's cwd lies in what the agent does (working, " +
			"waiting, idle, ended) and the session, for list, show, watch and resume; EVENT names the event " +
			"for a runner whose payloads do not (Copilot CLI). It prints nothing and always exits 0.",
		Action: func(c *cli.Context) error {
			if runner, ok := strings.CutSuffix(c.Args().First(), "-status"); ok {
				return e.agentStatus(c.Context, runner, c.Args().Get(1))
			}
			which, err := oneArg(c, "claude-create|claude-remove")
			if err != nil {
				return err
			}
			if which == "codex-remove" {
				// The Codex app's cleanup script: no payload, the
				// worktree in the environment (or the folder it runs in).
				path := os.Getenv("CODEX_WORKTREE_PATH")
				if path == "" {
					path, _ = os.Getwd()
				}
				return e.claudeRemove(c.Context, &agents.Payload{WorktreePath: path})
			}
			p, err := agents.ReadPayload(e.stdin)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			switch which {
			case "claude-create":
				return e.claudeCreate(c.Context, p)
			case "claude-remove":
				return e.claudeRemove(c.Context, p)
			}
			return exitcode.Usagef("unknown hook %q: want claude-create or claude-remove", which)
		},
	}
}

// claudeCreate is `new` for the task the payload names, from the folder
// it names; the payload's base counts only for a task not made yet.
func (e *env) claudeCreate(ctx context.Context, p *agents.Payload) error {
	id, err := p.TaskID()
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if dir := p.Dir(); dir != "" {
		if err := os.Chdir(dir); err != nil {
			return exitcode.Usagef("cannot change to the hook's folder %s: %v", dir, err)
		}
	}
	m, err := e.manager(ctx, "agent-hook")
	if err != nil {
		return err
	}
	h := e.handlers(m)
	res, err := h.lifecycle.Create(ctx, lifecycle.CreateOptions{TaskID: id, Base: p.Base(), ForRunner: true})
	if err != nil {
		return err
	}
	e.infof("task %q for the agent runner: %s", id, res.Record.Path)
	_, err = fmt.Fprintln(e.stdout, res.Record.Path) // terminal: the path the runner reads, as it is
	h.policy.AutoGC(ctx)
	return err
}

// claudeRemove removes the task whose recorded path is exactly the
// payload's worktree_path, as rm would without --force. Whatever it
// keeps, it says so and exits 0: the runner must not delete it itself.
func (e *env) claudeRemove(ctx context.Context, p *agents.Payload) error {
	path := p.WorktreePath
	if path == "" {
		return exitcode.Usagef("%v: it names no worktree_path", agents.ErrPayload)
	}
	if !filepath.IsAbs(path) && p.Cwd != "" {
		path = filepath.Join(p.Cwd, path)
	}
	ent, m, err := e.taskAt(ctx, filepath.Clean(path))
	if err != nil {
		e.warnf("left %s alone: %v", path, err)
		return nil
	}
	o := removal.RemoveOptions{CallersAway: true, Background: true}
	r := e.handlers(m).removal.RemoveEntry(ctx, ent, o)
	switch {
	case r.Err != nil && r.WorktreeOutcome == removal.Deleted:
		e.warnf("%v", r.Err) // gone, but not all of it: the error says what is left
		return nil
	case r.Err != nil:
		e.warnf("kept %s: %v", path, r.Err)
		return nil
	}
	e.reportRemoval(r, o)
	return nil
}

// taskAt finds the repository from the worktree at path (its .git file)
// and the task whose recorded path it is exactly: not the main worktree,
// a foreign worktree or a folder inside a task.
func (e *env) taskAt(ctx context.Context, path string) (*record.Entry, *task.Manager, error) {
	if err := os.Chdir(path); err != nil {
		return nil, nil, fmt.Errorf("it is not a folder (%v)", err)
	}
	m, err := e.manager(ctx, "agent-hook")
	if err != nil {
		return nil, nil, err
	}
	os.Chdir(m.Repo.MainDir) // not inside the folder that goes
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil, err
	}
	all, err := m.Store.All(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i := range all {
		if rec := all[i].Record; rec != nil && (fsutil.SamePath(rec.Path, path) || fsutil.SamePath(rec.Path, real)) {
			return &all[i], m, nil
		}
	}
	return nil, nil, fmt.Errorf("it is no git-wt task's worktree in %s", m.Repo.MainDir)
}
