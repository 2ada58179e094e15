package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/text"
)

func commitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "commit",
		Usage:     "stage everything in a task's worktree and commit it; print the commit",
		ArgsUsage: "TASK -m MSG",
		Description: "Stages every change, new files included and ignored files not (git add -A), " +
			"and commits with MSG; your commit hooks run. Prints the new commit's id. With nothing " +
			"to commit it makes no commit, prints the current one, and exits 0. A task still being " +
			"created, or whose worktree has no branch checked out (a detached HEAD), is refused " +
			"(exit 3) with nothing staged: the commit would be on no branch.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "the commit message `MSG`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			if !c.IsSet("message") {
				return exitcode.Usagef("git wt commit needs a message: git wt commit TASK -m MSG")
			}
			m, ent, err := e.findTask(c.Context, "commit", arg)
			if err != nil {
				return err
			}
			sha, made, err := e.handlers(m).workflow.Commit(c.Context, ent.Record, c.String("message"), e.toolOutput())
			if err != nil {
				return err
			}
			heartbeat(m, ent.Record)
			if made {
				e.infof("committed %s on %s in %s", text.ShortID(sha), ent.Record.Branch, ent.Record.Path)
			} else {
				e.infof("nothing to commit in %s: %s stays at %s", ent.Record.Path, ent.Record.Branch, text.ShortID(sha))
			}
			if c.Bool("json") {
				return writeJSON(e.stdout, map[string]any{"task": ent.Record.Task, "branch": ent.Record.Branch, "commit": sha, "committed": made})
			}
			_, err = fmt.Fprintln(e.stdout, sha) // terminal: a commit id git printed
			return err
		},
	}
}
