package cli

import (
	"fmt"

	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/urfave/cli/v2"
)

func newCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "new",
		Aliases:   []string{"create", "add"},
		Usage:     "create a branch and worktree for a task and print the worktree's path",
		ArgsUsage: "TASK",
		Description: "TASK is any text (TASK-123, \"fix: bug #123\"). The branch is wt.branchPrefix " +
			"plus the task's slug and the worktree goes to wt.baseDir/<slug>. If the task exists " +
			"already, its path is printed again (exit 0): an agent that restarts resumes there.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "branch", Usage: "use branch `B` (created if missing) instead of wt.branchPrefix+slug"},
			&cli.StringFlag{Name: "base", Usage: "start from `REF` (default: the branch checked out in the main worktree)"},
			&cli.StringFlag{Name: "path", Usage: "put the worktree in `DIR` (inside the base dir; relative to it)"},
			&cli.BoolFlag{Name: "no-init", Usage: "do not run the init command"},
			&cli.BoolFlag{Name: "no-copy", Usage: "do not copy wt.copy files"},
			&cli.BoolFlag{Name: "take-over", Usage: "take the task from another machine whose claim on wt.claimRemote is stale (seen unchanged for wt.claimTTL) and has no open pull request"},
			&cli.BoolFlag{Name: "force", Usage: "with --take-over: take it although gh cannot say whether a pull request is open"},
			&cli.StringSliceFlag{Name: "sparse", Usage: "check out only directory `DIR` and the files at the root (repeatable; default: wt.sparse, else the current worktree's)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			id, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			m, err := e.manager(c.Context, "new")
			if err != nil {
				return err
			}
			giveBack, err := e.claimFirst(c, m, id)
			if err != nil {
				return err
			}
			defer func() { giveBack() }()
			res, err := e.handlers(m).lifecycle.Create(c.Context, lifecycle.CreateOptions{
				TaskID: id,
				Branch: c.String("branch"),
				Base:   c.String("base"),
				Path:   c.String("path"),
				NoInit: c.Bool("no-init"),
				NoCopy: c.Bool("no-copy"),
				Sparse: c.StringSlice("sparse"),
			})
			if err != nil {
				return err
			}
			giveBack = func() {} // the task is made: its claim stays
			if res.Existed {
				e.infof("task %q exists already: %s", id, res.Record.Path)
			} else {
				e.infof("created %s on branch %s", res.Record.Path, res.Record.Branch)
			}
			if c.Bool("json") {
				err = writeJSON(e.stdout, res.Record)
			} else {
				_, err = fmt.Fprintln(e.stdout, res.Record.Path)
			}
			e.handlers(m).policy.AutoGC(c.Context)
			return err
		},
	}
}
