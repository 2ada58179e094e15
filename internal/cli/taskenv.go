package cli

import (
	"fmt"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/urfave/cli/v2"
)

func envCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "env",
		Usage:     "print a task's environment: its WT_ variables and its ports",
		ArgsUsage: "TASK",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "shell", Usage: "print export lines, for eval"},
			&cli.BoolFlag{Name: "dotenv", Usage: "print a dotenv file"},
		},
		Action: func(c *cli.Context) error {
			formats := 0
			for _, f := range []string{"json", "shell", "dotenv"} {
				if c.Bool(f) {
					formats++
				}
			}
			if formats > 1 {
				return exitcode.Usagef("--json, --shell and --dotenv each choose the format: give one")
			}
			m, ent, err := e.task(c, "env")
			if err != nil {
				return err
			}
			vars := m.OwnEnv(ent.Record)
			switch {
			case c.Bool("json"):
				obj := make(map[string]string, len(vars))
				for _, kv := range vars {
					name, value, _ := strings.Cut(kv, "=")
					obj[name] = value
				}
				return writeJSON(e.stdout, obj)
			case c.Bool("dotenv"):
				_, err = fmt.Fprint(e.stdout, task.Dotenv(vars))
			case c.Bool("shell"):
				var b strings.Builder
				for _, kv := range vars {
					name, value, _ := strings.Cut(kv, "=")
					fmt.Fprintf(&b, "export %s=%s\n", name, text.ShellQuote(value))
				}
				_, err = fmt.Fprint(e.stdout, b.String())
			default:
				_, err = fmt.Fprintln(e.stdout, strings.Join(vars, "\n"))
			}
			return err
		},
	}
}
