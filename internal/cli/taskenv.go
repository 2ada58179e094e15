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
		Usage:     "print a task's environment: its WT_ variables, its ports and its COMPOSE_PROJECT_NAME",
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
				_, err = fmt.Fprint(e.stdout, task.Dotenv(vars)) // terminal: a file for programs to read
			case c.Bool("shell"):
				_, err = fmt.Fprint(e.stdout, varLines(vars, "export ", text.ShellQuote)) // terminal: lines for eval
			default: // one line each: a value with a line break is quoted
				_, err = fmt.Fprint(e.stdout, varLines(vars, "", text.Terminal)) // terminal: varLines quotes each value
			}
			return err
		},
	}
}

// varLines prints each NAME=value of vars on a line of its own, after
// prefix, its value quoted by quote.
func varLines(vars []string, prefix string, quote func(string) string) string {
	var b strings.Builder
	for _, kv := range vars {
		name, value, _ := strings.Cut(kv, "=")
		b.WriteString(prefix + name + "=" + quote(value) + "\n")
	}
	return b.String()
}
