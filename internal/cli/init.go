package cli

import (
	"cmp"
	"os"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/urfave/cli/v2"
)

func initCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "set a task's worktree up again: copy the wt.copy files, run the init commands",
		ArgsUsage: "TASK | --adopt [PATH]",
		Description: "Runs what git wt new ran after its checkout: the wt.copy and .worktreeinclude " +
			"files are copied from the main worktree (files there already are kept), then each " +
			"wt.init command runs with sh -c in the worktree. The status is recorded; the output " +
			"goes to the task's log. A failure exits 1 naming the log. --adopt makes the worktree at PATH " +
			"(default: the current one), which an agent runner or plain git made, a task (state adopted; " +
			"a detached HEAD gets a branch named for its folder) and sets it up as git wt new would: " +
			"ports, env file, copy, init. It is what git wt agent-setup codex|cursor has those runners " +
			"run in each worktree they make; on a worktree that is a task already it does nothing more.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-copy", Usage: "run the init commands only"},
			&cli.BoolFlag{Name: "adopt", Usage: "make the worktree at PATH (default: here) a task, then set it up"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.Bool("adopt") {
				return e.adoptHere(c)
			}
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

// adoptHere is init --adopt: the worktree at the argument (or the current
// one) becomes a task, set up.
func (e *env) adoptHere(c *cli.Context) error {
	if c.NArg() > 1 {
		return exitcode.Usagef("git wt init --adopt takes at most one PATH")
	}
	if dir := c.Args().First(); dir != "" {
		if err := os.Chdir(dir); err != nil {
			return exitcode.Usagef("cannot change to %s: %v", dir, err)
		}
	}
	m, err := e.manager(c.Context, "init")
	if err != nil {
		return err
	}
	ent, err := e.handlers(m).lifecycle.AdoptRunner(c.Context)
	if err != nil {
		return err
	}
	rec := ent.Record
	e.infof("task %q in %s: %s, init %s", rec.Task, rec.Path, rec.State, cmp.Or(string(rec.Init.Status), "not run"))
	return e.printResult(c, rec, "")
}
