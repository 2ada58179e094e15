package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/git-wt/git-wt/internal/workflow"
)

func syncCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "bring task branches up to date with their bases, parents before children",
		ArgsUsage: "[TASK...]",
		Description: "Each task's branch is brought up to its recorded base: rebased while it was never " +
			"pushed (no upstream, no remote branch of its name, no pull request), merged once it may be " +
			"in other hands. A task stacked on another (git wt new --base PARENT) syncs after its parent; " +
			"a parent already merged into its own base is left alone and its children move onto that " +
			"base. The new tip is made without touching the task's files; then the branch and the files " +
			"move together, or not at all. A dirty, locked, in-use or busy task is skipped with the " +
			"reason (exit 3 at the end); a conflict changes nothing and names the files (exit 1 at the " +
			"end, which wins over 3); a TASK that does not exist is reported on its own (exit 5 at the end); " +
			"the other tasks still sync. With no TASK, the task of the current " +
			"directory.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "sync every task"},
			&cli.BoolFlag{Name: "rebase", Usage: "always rebase the task's commits onto the base"},
			&cli.BoolFlag{Name: "merge", Usage: "always merge the base into the task"},
			&cli.BoolFlag{Name: "fetch", Usage: "fetch first, where a base is a remote-tracking branch"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what each task would do, conflicts included, and change nothing"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			o, err := syncOptions(c)
			if err != nil {
				return err
			}
			m, err := e.manager(c.Context, "sync")
			if err != nil {
				return err
			}
			all, err := m.Store.All(c.Context)
			if err != nil {
				return err
			}
			targets, missing, err := syncTargets(c, m, all)
			if err != nil {
				return err
			}
			results, err := e.handlers(m).workflow.Sync(c.Context, targets, all, o)
			if err != nil {
				return err
			}
			if !o.DryRun {
				for _, t := range targets {
					heartbeat(m, t.Record)
				}
			}
			return e.reportSync(c.Context, append(results, missing...), c.Bool("json"))
		},
	}
}

// syncOptions reads the flags; --rebase and --merge exclude each other.
func syncOptions(c *cli.Context) (workflow.SyncOptions, error) {
	o := workflow.SyncOptions{DryRun: c.Bool("dry-run"), Fetch: c.Bool("fetch")}
	switch {
	case c.Bool("rebase") && c.Bool("merge"):
		return o, exitcode.Usagef("--rebase and --merge exclude each other")
	case c.Bool("rebase"):
		o.Mode = workflow.SyncRebase
	case c.Bool("merge"):
		o.Mode = workflow.SyncMerge
	}
	if c.Bool("all") && c.NArg() > 0 {
		return o, exitcode.Usagef("give TASKs or --all, not both")
	}
	return o, nil
}

// syncTargets are the tasks named, every readable task of all with
// --all, or the task of the current directory. A named task that cannot
// be found is no reason not to sync the others (SPEC §2): it is missing,
// a result of its own.
func syncTargets(c *cli.Context, m *task.Manager, all []record.Entry) (targets []*record.Entry, missing []*workflow.SyncResult, err error) {
	if c.Bool("all") {
		for i := range all {
			if all[i].Record != nil { // doctor reports the unreadable ones
				targets = append(targets, &all[i])
			}
		}
		return targets, nil, nil
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		args = []string{"."}
	}
	for _, arg := range args {
		e, err := lookup(c.Context, m, arg)
		switch {
		case err == nil:
			targets = append(targets, e)
		case arg == "." && exitcode.Of(err) == exitcode.NotFound:
			return nil, nil, exitcode.Usagef("this folder is in no task: name the TASKs to sync, or use --all")
		case exitcode.Of(err) == exitcode.NotFound:
			missing = append(missing, &workflow.SyncResult{Task: arg, Outcome: workflow.SyncNotFound, Err: err})
		default:
			missing = append(missing, &workflow.SyncResult{Task: arg, Outcome: workflow.SyncFailed, Err: err})
		}
	}
	return targets, missing, nil
}

// syncView is one task in sync --json: its result, and the error of
// SPEC §2's shape when it was skipped or failed.
type syncView struct {
	*workflow.SyncResult
	Error *errorBody `json:"error,omitempty"`
}

// reportSync prints a line per task (stderr) or the JSON document
// (stdout), and returns the exit code the outcomes make: 5 if a task
// named was not found, else 1 if a task conflicted or failed, else 3 if
// one was skipped.
func (e *env) reportSync(ctx context.Context, results []*workflow.SyncResult, asJSON bool) error {
	code := exitcode.OK
	views := make([]syncView, 0, len(results))
	for _, r := range results {
		v := syncView{SyncResult: r}
		if r.Err != nil {
			switch r.Outcome {
			case workflow.SyncNotFound:
				code = exitcode.NotFound
			case workflow.SyncConflict, workflow.SyncFailed:
				if code != exitcode.NotFound {
					code = exitcode.Failed // a failure says more than a skip
				}
			default:
				if code == exitcode.OK {
					code = exitcode.Refused
				}
			}
			body := errorDocument(ctx, r.Err, exitcode.Of(r.Err)).Error
			if body.Task == "" {
				body.Task = r.Task
			}
			v.Error = &body
		}
		views = append(views, v)
		e.reportSyncResult(r)
	}
	if asJSON {
		if err := writeJSON(e.stdout, struct {
			Tasks []syncView `json:"tasks"`
		}{views}); err != nil {
			return err
		}
	}
	if code != exitcode.OK {
		return &silentError{code: code}
	}
	return nil
}

// reportSyncResult says on stderr what the sync did to one task.
func (e *env) reportSyncResult(r *workflow.SyncResult) {
	would := ""
	if r.DryRun {
		would = "would be "
	}
	switch r.Outcome {
	case workflow.SyncUpToDate:
		if r.Merged {
			e.infof("%s: merged into %s already: left alone (the tasks on it move onto %s)", r.Task, r.Base, r.Base)
			return
		}
		e.infof("%s: up to date with %s", r.Task, r.Base)
	case workflow.SyncRebased, workflow.SyncMerged, workflow.SyncReparented:
		how := r.Outcome
		if r.Outcome == workflow.SyncReparented {
			how = fmt.Sprintf("moved from %s onto", r.ReparentedFrom)
		} else {
			how += " onto"
		}
		detail := fmt.Sprintf("%d new %s of %s", r.Behind, text.Plural(r.Behind, "commit", "commits"), r.Base)
		if r.To != "" && r.To != r.From {
			detail += ", now at " + text.ShortID(r.To)
		}
		e.infof("%s: %s%s %s (%s)", r.Task, would, how, r.Base, detail)
	default:
		if r.Err != nil {
			e.errorf("%s: %s: %v", r.Task, r.Outcome, r.Err)
		}
	}
}
