package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/hooks"
)

func uninstallCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "remove git-wt's hooks from this repository, putting back the hooks they had chained",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			m, t, err := e.hookTarget(c.Context, "uninstall")
			if err != nil {
				return err
			}
			changes, err := hooks.Uninstall(t.Dir)
			e.reportHookChanges(m, changes)
			return err
		},
	}
}
