package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
)

// restoreCommand makes a removed task again from its saved state (SPEC §20).
func restoreCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "make a removed task again from the state its removal saved (git wt trash lists them), and print its path",
		ArgsUsage: "ID",
		Description: "ID is a state's <slug>/<stamp> (or the stamp alone), or a task id or slug, which picks that task's newest state. The task " +
			"is made as new makes it (at its usual place, or --path; its setup runs as new's does), its branch at the " +
			"commit it had, and the saved files written as uncommitted changes, byte for byte: modified, added, deleted " +
			"and untracked files, executable bits, symbolic links. Ignored files were not saved. A task or branch of " +
			"that name that exists now refuses it (exit 3). With wt.claimRemote the task is claimed first, as new claims it " +
			"(exit 4 when another machine holds it). The saved state stays until gc expires it (wt.trashKeep).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Usage: "make the worktree at `DIR` (inside the base dir)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitcode.Usagef("git wt restore takes exactly one ID: a saved state, or a task id for its newest (git wt trash lists them)")
			}
			m, err := e.manager(c.Context, "restore")
			if err != nil {
				return err
			}
			res, err := e.handlers(m).lifecycle.Restore(c.Context, c.Args().First(), c.String("path"), func(task, branch string) (func(), error) {
				return e.claimFirst(c, m, task, branch)
			})
			if err != nil {
				return err
			}
			e.infof("restored %s on branch %s from %s", res.Record.Path, res.Record.Branch, res.From.ID)
			if c.Bool("json") {
				return writeJSON(e.stdout, struct {
					*record.Record
					RestoredFrom string `json:"restored_from"`
				}{res.Record, res.From.ID})
			}
			_, err = fmt.Fprintln(e.stdout, res.Record.Path) // terminal: the path, as it is, for cd "$(git wt restore T)"
			return err
		},
	}
}
