package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/git-wt/git-wt/internal/workflow"
)

func prCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "pr",
		Usage:     "record a task's pull request, or create and refresh it with gh",
		ArgsUsage: "TASK [-- GH-ARGS...]",
		Description: "With --set-url, --number, --title, --state or --created-at, records what you give (any forge). " +
			"--create runs gh pr create --fill for the task's pushed branch into its base (arguments " +
			"after -- go to gh), --refresh runs gh pr view; both record what gh says. Without flags, " +
			"prints what is recorded. A pull request in state MERGED makes the task count as merged " +
			"(rm and gc delete its branch). Prints the pull request's URL.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "create", Usage: "open a pull request with gh and record it"},
			&cli.BoolFlag{Name: "refresh", Usage: "ask gh for the pull request's state and record it"},
			&cli.StringFlag{Name: "set-url", Usage: "record the pull request's `URL`"},
			&cli.IntFlag{Name: "number", Usage: "record the pull request's number `N`"},
			&cli.StringFlag{Name: "title", Usage: "record the title `T` (with --create: the title to open it with)"},
			&cli.StringFlag{Name: "state", Usage: "record the state `S` (OPEN, CLOSED, MERGED)"},
			&cli.StringFlag{Name: "created-at", Usage: "record when it was opened, `TIME` in RFC 3339 (2026-03-01T08:30:00Z), as --refresh records gh's createdAt"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return exitcode.Usagef("git wt pr needs a TASK (see git wt pr -h)")
			}
			create, refresh := c.Bool("create"), c.Bool("refresh")
			byHand := c.IsSet("set-url") || c.IsSet("number") || c.IsSet("state") || c.IsSet("created-at") || c.IsSet("title") && !create
			extra := c.Args().Tail()
			switch {
			case len(extra) > 0 && !create:
				return exitcode.Usagef("arguments after TASK are for gh pr create: give them with --create")
			case byHand && (create || refresh):
				return exitcode.Usagef("--set-url, --number, --title, --state and --created-at record by hand, --create and --refresh ask gh: use one or the other")
			}
			m, ent, err := e.findTask(c.Context, "pr", c.Args().First())
			if err != nil {
				return err
			}
			pr := ent.Record.PR
			switch {
			case create:
				pr, err = e.handlers(m).workflow.CreatePR(c.Context, ent, c.String("title"), extra, e.toolOutput())
			case refresh:
				pr, err = e.handlers(m).workflow.RefreshPR(c.Context, ent, e.toolOutput())
			case byHand:
				pr, err = e.handlers(m).workflow.SetPR(c.Context, ent, workflow.PRInfo{
					URL: c.String("set-url"), Number: c.Int("number"), Title: c.String("title"), State: c.String("state"),
					CreatedAt: c.String("created-at"), SetCreatedAt: c.IsSet("created-at"),
				})
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e.stdout, pr)
			}
			if pr == nil {
				e.infof("no pull request recorded for task %q (record one with --set-url URL, or open one with --create)", ent.Record.Task)
				return nil
			}
			// Its title, state and URL are anyone's text (SPEC §19):
			// infof escapes its line, the URL is quoted.
			e.infof("pull request %s: %s", prCell(pr), pr.Title)
			_, err = fmt.Fprintln(e.stdout, text.Terminal(cmp.Or(pr.URL, prCell(pr))))
			return err
		},
	}
}

// prCell is a pull request in a few characters: "#12 open".
func prCell(pr *record.PR) string {
	if pr == nil {
		return "-"
	}
	var parts []string
	if pr.Number > 0 {
		parts = append(parts, fmt.Sprintf("#%d", pr.Number))
	}
	if pr.State != "" {
		parts = append(parts, strings.ToLower(pr.State))
	}
	if len(parts) == 0 {
		return pr.URL
	}
	return strings.Join(parts, " ")
}
