package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/text"
)

func rmCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "rm",
		Aliases:   []string{"remove", "teardown"},
		Usage:     "remove task worktrees, their branches (when no commits are lost) and records",
		ArgsUsage: "TASK...",
		Description: "A dirty, locked or in-use worktree is refused (exit 3) and nothing is changed. " +
			"A clean worktree whose branch has commits found nowhere else is removed and the " +
			"branch kept, with a warning. A branch that existed before the task is always kept. " +
			"Removing a task that does not exist succeeds.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "discard uncommitted changes, ignore locks and use, delete unmerged branches that git-wt created; what no commit holds is saved first (git wt trash, git wt restore)"},
			&cli.BoolFlag{Name: "ignore-in-use", Usage: "skip only the check for processes working in the worktree (for an agent in a sandbox, which cannot see them); every other check stays"},
			&cli.BoolFlag{Name: "reap", Usage: "end the processes working in the worktree (SIGTERM, then SIGKILL after 5s), never your own shell, then remove it; refused when they cannot be seen; not --force"},
			&cli.BoolFlag{Name: "keep-branch", Usage: "keep the task's branch"},
			&cli.BoolFlag{Name: "wait", Usage: "return once the files are deleted (for scripts that need the space, or unmount next); without it rm leaves them to a background deletion after wt.rmWait"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be removed and remove nothing"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return exitcode.Usagef("git wt rm needs at least one TASK (see git wt rm -h)")
			}
			m, err := e.manager(c.Context, "rm")
			if err != nil {
				return err
			}
			o := removal.RemoveOptions{Force: c.Bool("force"), KeepBranch: c.Bool("keep-branch"), DryRun: c.Bool("dry-run"), IgnoreInUse: c.Bool("ignore-in-use"), Reap: c.Bool("reap"), Background: true, Wait: c.Bool("wait")}
			code := exitcode.OK
			var results []removalView
			for _, arg := range c.Args().Slice() {
				r := e.handlers(m).removal.Remove(c.Context, arg, o)
				results = append(results, newRemovalView(c.Context, r))
				code = max(code, exitcode.Of(r.Err))
				e.reportRemoval(r, o)
			}
			if c.Bool("json") {
				if err := writeJSON(e.stdout, results); err != nil {
					return err
				}
			}
			if code != exitcode.OK {
				return &silentError{code: code}
			}
			return nil
		},
	}
}

// reportRemoval tells the user what happened to one task, on stderr.
func (e *env) reportRemoval(r *removal.Removal, o removal.RemoveOptions) {
	if r.Err != nil {
		e.errorf("%v", r.Err)
		return
	}
	switch r.WorktreeOutcome {
	case removal.NotFound:
		e.infof("no task %q: nothing to remove", r.Task)
		return
	case removal.WouldDelete, removal.AlreadyGone:
		if o.DryRun {
			e.infof("would remove %s", r.Path)
		}
	}
	switch r.BranchOutcome {
	case removal.KeptUnmerged:
		e.warnf("kept branch %s: %d %s not merged (use --force to delete it)", r.Branch, r.Unmerged, text.Plural(r.Unmerged, "commit", "commits"))
	case removal.KeptCheckedOut:
		e.warnf("kept branch %s: it is checked out in another worktree", r.Branch)
	case removal.KeptNotCreated:
		e.infof("kept branch %s: it existed before the task, so it is yours to delete (git branch -d %s)", r.Branch, r.Branch)
	case removal.WouldDelete:
		e.infof("would delete branch %s", r.Branch)
	}
	if !o.DryRun {
		e.infof("removed %s", r.Path)
	}
	if r.Saved != "" {
		e.infof("saved what it held that no commit has as %s: git wt restore %s brings it back", r.Saved, r.Saved)
	}
}

// removalView is one task in rm --json: what happened, and the error of
// SPEC §2's shape when it failed or was refused.
type removalView struct {
	*removal.Removal
	Error *errorBody `json:"error,omitempty"`
}

func newRemovalView(ctx context.Context, r *removal.Removal) removalView {
	v := removalView{Removal: r}
	if r.Err != nil {
		body := errorDocument(ctx, r.Err, exitcode.Of(r.Err)).Error
		if body.Task == "" {
			body.Task, body.Path = r.Task, r.Path
		}
		v.Error = &body
	}
	return v
}
