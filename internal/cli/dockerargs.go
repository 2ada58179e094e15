package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/text"
)

func dockerArgsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "docker-args",
		Usage:     "print the docker run flags that make git work in a container on a task's worktree",
		ArgsUsage: "TASK",
		Description: "Mounts the worktree at wt.containerWorkdir (default /workspace) and git's common " +
			"dir at its own absolute path (the worktree's .git file points there), sets the working " +
			"directory, and runs as the worktree's owner (git refuses a repository another user " +
			"owns). One argument per line; --oneline prints them shell-quoted on one line, for " +
			"eval \"docker run $(git wt docker-args TASK --oneline) IMAGE git status\".",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "oneline", Usage: "one shell-quoted line"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			m, ent, err := e.findTask(c.Context, "docker-args", arg)
			if err != nil {
				return err
			}
			args, err := e.handlers(m).workflow.DockerArgs(ent.Record)
			switch {
			case err != nil:
				return err
			case c.Bool("json"):
				return writeJSON(e.stdout, args)
			case c.Bool("oneline"):
				_, err = fmt.Fprintln(e.stdout, text.ShellJoin(args)) // terminal: words for a shell to read
			case strings.Contains(strings.Join(args, ""), "\n"):
				return exitcode.Failedf("a path of task %q holds a newline, which one argument per line cannot show: use --oneline or --json", ent.Record.Task)
			default:
				_, err = fmt.Fprintln(e.stdout, strings.Join(args, "\n")) // terminal: arguments for a program to read
			}
			return err
		},
	}
}
