package cli

import (
	"github.com/git-wt/git-wt/internal/workflow"
	"github.com/urfave/cli/v2"
)

func pushCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "push a task's branch and set its upstream",
		ArgsUsage: "TASK",
		Description: "Pushes the task's branch under the same name to the remote git would push it " +
			"to (branch.<name>.pushRemote, remote.pushDefault, branch.<name>.remote), else the only " +
			"remote, else origin; sets it as the branch's upstream and checks that it was set " +
			"(git push -u does not fail when another process holds .git/config's lock).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "push to remote `R`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			m, ent, err := e.findTask(c.Context, "push", arg)
			if err != nil {
				return err
			}
			r, err := claims(m, "")
			if err != nil {
				return err
			}
			var cp workflow.ClaimPush
			if r != nil {
				cp = r
			}
			p, err := e.handlers(m).workflow.Push(c.Context, ent.Record, c.String("remote"), e.toolOutput(), cp)
			if err != nil {
				return err
			}
			e.infof("pushed %s to %s; its upstream is %s", p.Branch, p.Remote, p.Upstream)
			return e.printResult(c, p, "")
		},
	}
}
