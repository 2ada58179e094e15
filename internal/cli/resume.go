package cli

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/text"
)

func resumeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "take up the agent session last seen in a task, with its runner's own resume command",
		ArgsUsage: "TASK",
		Description: "Runs, in the task's worktree and with its environment as git wt exec does, the resume " +
			"command of the runner whose session git wt agent-hook RUNNER-status saw last there: claude " +
			"--resume=ID, codex resume ID, gemini --resume=ID, copilot --resume=ID, opencode --session=ID; " +
			"an id that is not in the runner's id form (letters, digits, '.', '_', '-', not starting with '-') " +
			"is refused (exit 3). " +
			"--print prints the command line (cd PATH && ...) instead. A task where no session was seen " +
			"exits 5.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "print", Usage: "print the command instead of running it"}},
		Action: func(c *cli.Context) error {
			m, ent, err := e.task(c, "resume")
			if err != nil {
				return err
			}
			rec := ent.Record
			last := agents.LastSession(rec)
			if last == nil {
				return exitcode.NotFoundf("no agent session was seen in task %q (git wt agent-setup RUNNER installs the hooks that report them)", rec.Task)
			}
			argv, err := agents.ResumeCommand(last)
			if errors.Is(err, agents.ErrSessionID) {
				return exitcode.RefusedAs(exitcode.KindUnsafeInput, "task %q: %v (a runner's ids are letters, digits, '.', '_' and '-', not starting with '-'): nothing was run",
					rec.Task, err)
			}
			if err != nil {
				return exitcode.Failedf("%v", err)
			}
			if c.Bool("print") {
				quoted := make([]string, len(argv))
				for i, a := range argv {
					quoted[i] = text.ShellQuote(a)
				}
				return e.printResult(c, nil, "cd "+text.ShellQuote(rec.Path)+" && "+strings.Join(quoted, " "))
			}
			return e.handlers(m).workflow.Exec(rec, argv)
		},
	}
}
