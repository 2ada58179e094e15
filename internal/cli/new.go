package cli

import (
	"cmp"
	"fmt"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/workflow"
	"github.com/urfave/cli/v2"
)

func newCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "new",
		Aliases:   []string{"create", "add"},
		Usage:     "create a branch and worktree for a task and print the worktree's path",
		ArgsUsage: "[TASK]",
		Description: "TASK is any text (TASK-123, \"fix: bug #123\"). The branch is wt.branchPrefix " +
			"plus the task's slug and the worktree goes to wt.baseDir/<slug>. If the task exists " +
			"already, its path is printed again (exit 0): an agent that restarts resumes there. " +
			"--pr N (through gh): task pr-N unless named, on the pull request's head branch (a fork's is " +
			"fetched into the task's branch), based on its base, the PR recorded. --issue N: task issue-N " +
			"unless named, on wt.branchPrefix plus the slug of the issue's title, the issue recorded. " +
			"Without gh, or offline: exit 1, nothing made. A pull request whose branch git would not take " +
			"as a branch name (or that starts with -): exit 3, nothing made.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "branch", Usage: "use branch `B` (created if missing) instead of wt.branchPrefix+slug"},
			&cli.StringFlag{Name: "base", Usage: "start from `REF` (default: the branch checked out in the main worktree)"},
			&cli.StringFlag{Name: "path", Usage: "put the worktree in `DIR` (inside the base dir; relative to it)"},
			&cli.BoolFlag{Name: "no-init", Usage: "do not run the init command"},
			&cli.BoolFlag{Name: "no-copy", Usage: "do not copy wt.copy files"},
			&cli.BoolFlag{Name: "take-over", Usage: "take the task from another machine whose claim on wt.claimRemote is stale (seen unchanged for wt.claimTTL) and has no open pull request"},
			&cli.BoolFlag{Name: "force", Usage: "with --take-over: take it although gh cannot say whether a pull request is open"},
			&cli.StringSliceFlag{Name: "sparse", Usage: "check out only directory `DIR` and the files at the root (repeatable; default: wt.sparse, else the current worktree's)"},
			&cli.IntFlag{Name: "pr", Usage: "start from pull request `N` (gh): its head branch, its base, the PR recorded"},
			&cli.IntFlag{Name: "issue", Usage: "start from issue `N` (gh): a branch named after its title, the issue recorded"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			fromForge := c.IsSet("pr") || c.IsSet("issue")
			id := c.Args().First()
			if c.NArg() > 1 || c.NArg() == 0 && !fromForge {
				return exitcode.Usagef("git wt new takes exactly one TASK, or --pr N or --issue N and at most one TASK (see git wt new -h)")
			}
			if c.IsSet("pr") && c.IsSet("issue") {
				return exitcode.Usagef("--pr and --issue each say where the task starts: give one")
			}
			if c.IsSet("pr") && (c.IsSet("branch") || c.IsSet("base")) {
				return exitcode.Usagef("--pr takes the pull request's branch and base: leave --branch and --base out")
			}
			m, err := e.manager(c.Context, "new")
			if err != nil {
				return err
			}
			branch, base := c.String("branch"), c.String("base")
			var fs *workflow.ForgeStart
			if fromForge {
				if fs, err = forgeStart(c, e.handlers(m).workflow, id); err != nil {
					return err
				}
				id, branch = fs.TaskID, cmp.Or(branch, fs.Branch)
			}
			giveBack, err := e.claimFirst(c, m, id, branch)
			if err != nil {
				return err
			}
			defer func() { giveBack() }()
			o := lifecycle.CreateOptions{
				TaskID: id,
				Branch: branch,
				Base:   base,
				Path:   c.String("path"),
				NoInit: c.Bool("no-init"),
				NoCopy: c.Bool("no-copy"),
				Sparse: c.StringSlice("sparse"),
			}
			if fs != nil {
				// Claimed: the pull request's commits may come now; its
				// branch is made by Create, after the limit, as git-wt's.
				if err := e.handlers(m).workflow.Fetch(c.Context, fs); err != nil {
					return err
				}
				o.Base, o.StartAt = cmp.Or(o.Base, fs.Base), fs.StartAt
			}
			res, err := e.handlers(m).lifecycle.Create(c.Context, o)
			if err != nil {
				return err
			}
			giveBack = func() {} // the task is made: its claim stays
			if fs != nil {
				if err := e.handlers(m).workflow.RecordForge(c.Context, res.Record, fs); err != nil {
					return err
				}
			}
			if res.Existed {
				e.infof("task %q exists already: %s", id, res.Record.Path)
			} else {
				e.infof("created %s on branch %s", res.Record.Path, res.Record.Branch)
			}
			if c.Bool("json") {
				err = writeJSON(e.stdout, res.Record)
			} else {
				_, err = fmt.Fprintln(e.stdout, res.Record.Path) // terminal: the path, as it is, for cd "$(git wt new T)"
			}
			e.handlers(m).policy.AutoGC(c.Context)
			return err
		},
	}
}

// forgeStart asks gh for the pull request or issue new starts from.
func forgeStart(c *cli.Context, flow *workflow.Flow, id string) (*workflow.ForgeStart, error) {
	if c.IsSet("pr") {
		return flow.FromPR(c.Context, c.Int("pr"), id)
	}
	return flow.FromIssue(c.Context, c.Int("issue"), id)
}
