package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/urfave/cli/v2"
)

func showCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a task's whole record and live status",
		ArgsUsage: "TASK",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			m, ent, err := e.task(c, "show")
			if err != nil {
				return err
			}
			m.Touch(ent.Slug)
			o := inspect.LiveOptions{Status: true}
			l, err := e.handlers(m).inspect.InspectOne(c.Context, *ent, o)
			if err != nil {
				return err
			}
			v := newTaskView(l, o, m.Settings.StaleAfter)
			if c.Bool("json") {
				return writeJSON(e.stdout, v)
			}
			return e.showText(v)
		},
	}
}

// showText prints a task as "key: value" lines.
func (e *env) showText(v taskView) error {
	var b strings.Builder
	field := func(k string, val any) { fmt.Fprintf(&b, "%-14s %s\n", k+":", text.Terminal(fmt.Sprint(val))) }
	field("task", v.Task)
	field("slug", v.Slug)
	field("branch", v.Branch)
	field("path", v.Path)
	field("base", fmt.Sprintf("%s (%s)", strings.TrimPrefix(v.Base, "refs/heads/"), text.ShortID(v.BaseSHA)))
	field("state", e.stateCell(v).text)
	field("dirty", e.dirtyCell(v).text)
	field("ahead/behind", aheadBehind(v))
	field("created", v.CreatedAt.Local().Format("2006-01-02 15:04:05"))
	field("last access", v.LastAccessAt.Local().Format("2006-01-02 15:04:05"))
	if v.Init.Status != "" {
		field("init", v.Init.Status)
	}
	if v.Init.Error != "" {
		field("init error", v.Init.Error)
	}
	if v.Init.Log != "" {
		field("init log", v.Init.Log)
	}
	if len(v.Sparse) > 0 {
		field("sparse", strings.Join(v.Sparse, " ")+" (and the files at the root)")
	}
	if v.LockReason != "" {
		field("lock reason", v.LockReason)
	}
	if r := v.Reclaimed; r != nil {
		field("reclaimed", fmt.Sprintf("%s of build output, %s (git wt init %s sets it up again)",
			settings.FormatSize(r.Bytes), r.At.Local().Format("2006-01-02 15:04:05"), text.ShellQuote(v.Slug)))
	}
	if env := task.PortEnv(v.Record); len(env) > 0 {
		field("ports", strings.Join(env[:len(env)-1], " ")) // all but WT_PORTS
	}
	if v.PR != nil {
		// What the forge says is anyone's text (SPEC §19): quoted.
		field("pr", fmt.Sprintf("#%d %s %s %s", v.PR.Number, v.PR.State, v.PR.URL, v.PR.Title))
	}
	if v.Agent != nil {
		field("agent", e.agentCell(time.Now(), v.Agent).text)
	}
	for _, s := range v.Sessions {
		field("session", fmt.Sprintf("%s %s (%s – %s)", s.Runner, s.ID, s.FirstSeen.Local().Format("2006-01-02 15:04:05"), s.LastSeen.Local().Format("15:04:05")))
	}
	field("creator", fmt.Sprintf("pid %d on %s", v.CreatorPID, v.CreatorHost))
	_, err := fmt.Fprint(e.stdout, b.String()) // terminal: every value passed text.Terminal in field
	return err
}
