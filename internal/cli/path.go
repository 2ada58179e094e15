package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func pathCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "path",
		Usage:     "print a task's worktree path (cd \"$(git wt path TASK)\")",
		ArgsUsage: "TASK",
		Action: func(c *cli.Context) error {
			m, ent, err := e.task(c, "path")
			if err != nil {
				return err
			}
			m.Touch(ent.Slug)
			_, err = fmt.Fprintln(e.stdout, ent.Record.Path)
			return err
		},
	}
}
