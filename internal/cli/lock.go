package cli

import (
	"github.com/urfave/cli/v2"
)

func lockCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "lock",
		Usage:     "protect a task's worktree from gc, merge-time cleanup and rm (uses git worktree lock)",
		ArgsUsage: "TASK",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "say why (`R`), for whoever finds it locked"}, jsonFlag},
		Action:    func(c *cli.Context) error { return e.setLocked(c, true) },
	}
}

func unlockCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "unlock",
		Usage:     "let gc, merge-time cleanup and rm handle a task's worktree again",
		ArgsUsage: "TASK",
		Flags:     []cli.Flag{jsonFlag},
		Action:    func(c *cli.Context) error { return e.setLocked(c, false) },
	}
}

func (e *env) setLocked(c *cli.Context, locked bool) error {
	m, ent, err := e.task(c, c.Command.Name)
	if err != nil {
		return err
	}
	var reason *string // not given: a lock keeps its reason
	if c.IsSet("reason") {
		r := c.String("reason")
		reason = &r
	}
	if err := m.SetLocked(c.Context, ent, locked, reason); err != nil {
		return err
	}
	e.infof("%sed %s", c.Command.Name, ent.Record.Path)
	rec := ent.Record
	return e.printResult(c, lockDoc{Task: rec.Task, Path: rec.Path, Locked: rec.Locked, Reason: rec.LockReason}, "")
}

// lockDoc is lock --json and unlock --json: the task's lock as it is now.
type lockDoc struct {
	Task   string `json:"task"`
	Path   string `json:"path"`
	Locked bool   `json:"locked"`
	Reason string `json:"lock_reason,omitempty"`
}
