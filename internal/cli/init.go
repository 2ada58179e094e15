package cli

import (
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/urfave/cli/v2"
)

func initCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "set a task's worktree up again: copy the wt.copy files, run the init commands",
		ArgsUsage: "TASK",
		Description: "Runs what git wt new ran after its checkout: the wt.copy and .worktreeinclude " +
			"files are copied from the main worktree (files there already are kept), then each " +
			"wt.init command runs with sh -c in the worktree. The status is recorded; the output " +
			"goes to the task's log. A failure exits 1 naming the log.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-copy", Usage: "run the init commands only"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			m, err := e.manager(c.Context, "init")
			if err != nil {
				return err
			}
			rec, err := e.handlers(m).setup.Reinit(c.Context, arg, setup.Options{Copy: !c.Bool("no-copy"), Init: true})
			if err != nil {
				return err
			}
			e.infof("init of task %q in %s: %s (log: %s)", rec.Task, rec.Path, rec.Init.Status, m.LogPath(rec.Slug))
			return e.printResult(c, rec, "")
		},
	}
}
