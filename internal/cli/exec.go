package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
)

func execCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "run a command in a task's worktree, with the task's environment",
		ArgsUsage: "TASK [--] CMD [ARGS...]",
		Description: "CMD runs with the worktree as its working directory and WT_TASK, WT_SLUG, " +
			"WT_BRANCH, WT_PATH, WT_MAIN and WT_BASE set. git-wt becomes CMD (exec): stdin, stdout, " +
			"stderr and signals are CMD's, and the exit status is CMD's (127: no such command, " +
			"126: it cannot be run). On Windows, which cannot replace a process, git-wt runs CMD and " +
			"waits for it, through Ctrl+C, which reaches CMD. Everything after TASK is the command, flags included; the " +
			"\"--\" before it is optional. Counts as a use of the task.",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) > 1 && args[1] == "--" {
				args = append(args[:1], args[2:]...)
			}
			if len(args) < 2 {
				return exitcode.Usagef("git wt exec needs a TASK and a command: git wt exec TASK -- CMD [ARGS...]")
			}
			m, ent, err := e.findTask(c.Context, "exec", args[0])
			if err != nil {
				return err
			}
			return e.handlers(m).workflow.Exec(ent.Record, args[1:])
		},
	}
}
