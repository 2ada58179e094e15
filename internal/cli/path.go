package cli

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
)

func pathCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "path",
		Usage:     "print a task's worktree path (cd \"$(git wt path TASK)\")",
		ArgsUsage: "TASK",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "main", Usage: "print the main worktree's path instead (cd back from a task)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.Bool("main") {
				return e.printMainPath(c)
			}
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			// The hot path: no settings are read (the records were started
			// early, beside locating the repository: startEarly).
			m, err := e.finder(c.Context, "path")
			if err != nil {
				return err
			}
			ent, err := lookup(c.Context, m, arg)
			if err != nil {
				return err
			}
			m.Touch(ent.Slug)
			return e.printResult(c, pathDoc{Task: ent.Record.Task, Path: ent.Record.Path}, ent.Record.Path)
		},
	}
}

// printMainPath prints the path of the main worktree: `path --main`.
func (e *env) printMainPath(c *cli.Context) error {
	if c.NArg() != 0 {
		return exitcode.Usagef("git wt path --main takes no TASK (see git wt path -h)")
	}
	repo, err := e.locate(c.Context)
	if err != nil {
		// The current directory may be a worktree that was removed: the
		// way back to the main worktree must still be found.
		if _, cwdErr := os.Getwd(); cwdErr == nil {
			return err
		}
		found, ok := e.locateFromGoneDir(c.Context)
		if !ok {
			return exitcode.Failedf("the current directory was deleted, and no repository was found near it: cd to your repository")
		}
		repo = found
	}
	return e.printResult(c, pathDoc{Path: repo.MainDir}, repo.MainDir)
}

// pathDoc is path --json: the task's worktree, or the main worktree's.
type pathDoc struct {
	Task string `json:"task,omitempty"`
	Path string `json:"path"`
}
