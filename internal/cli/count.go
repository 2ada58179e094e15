package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/record"
)

func countCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "count",
		Usage: "print the number of task worktrees (the main worktree is not a task)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			repo, err := e.locate(c.Context)
			if err != nil {
				return err
			}
			refs, err := e.git.ListRefs(c.Context, repo.Toplevel, record.RefPrefix)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(e.stdout, len(refs))
			return err
		},
	}
}
