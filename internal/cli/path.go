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
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			m, err := e.manager(c.Context, "path")
			if err != nil {
				return err
			}
			ent, err := m.Find(c.Context, arg)
			if err != nil {
				return err
			}
			if ent.Err != nil {
				return ent.Err
			}
			m.Touch(ent.Slug)
			_, err = fmt.Fprintln(e.stdout, ent.Record.Path)
			return err
		},
	}
}
