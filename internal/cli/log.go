package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/events"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/text"
)

func logCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show the event log: what git-wt created, initialised, removed or refused, when, by which process, and why",
		ArgsUsage: "[TASK]",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.IntFlag{Name: "n", Usage: "show the last `N` events only"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return exitcode.Usagef("git wt log takes at most one TASK")
			}
			m, err := e.manager(c.Context, "log")
			if err != nil {
				return err
			}
			evs, err := m.Events.Read()
			if err != nil {
				return err
			}
			if c.NArg() == 1 {
				evs = eventsOf(evs, c.Args().First())
			}
			if n := c.Int("n"); n > 0 && len(evs) > n {
				evs = evs[len(evs)-n:]
			}
			if c.Bool("json") {
				if evs == nil {
					evs = []events.Event{}
				}
				return writeJSON(e.stdout, nonNil(evs))
			}
			for _, ev := range evs {
				who := ev.Task
				if who == "" {
					who = ev.Path
				}
				line := fmt.Sprintf("%s  %-8s %-12s %s", ev.Time.Local().Format("2006-01-02 15:04:05"), ev.Command, ev.Outcome, text.Terminal(who))
				if ev.Reason != "" {
					line += ": " + text.Terminal(ev.Reason)
				}
				fmt.Fprintf(e.stdout, "%s  (pid %d on %s)\n", text.TerminalLine(line), ev.PID, text.Terminal(ev.Host))
			}
			return nil
		},
	}
}

// eventsOf keeps the events of one task, named by task id, slug, branch
// or path: the task may be gone, so it is matched in the log, not looked up.
func eventsOf(evs []events.Event, arg string) []events.Event {
	var out []events.Event
	for _, ev := range evs {
		if ev.Task == arg || ev.Slug == arg || ev.Slug == slug.Make(arg) || ev.Path == arg ||
			ev.Path != "" && strings.HasSuffix(ev.Path, "/"+arg) {
			out = append(out, ev)
		}
	}
	return out
}
