package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/git-wt/git-wt/internal/workflow"
)

func mergeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge a task's branch into its base, then remove the task",
		ArgsUsage: "TASK",
		Description: "Merges as git merge does (a fast-forward when possible, else a merge commit; " +
			"merge.ff is honoured) unless a mode is given. If a worktree has the base checked out " +
			"(usually the main one), the merge happens there and that worktree must be clean " +
			"(else exit 3, nothing changed); if none has, the merge is made without touching any " +
			"checkout. A conflict is aborted, changes nothing, and exits 1 naming the files. Then " +
			"the task's worktree, branch and record are removed as git wt rm would, unless --keep; " +
			"a locked or in-use worktree is kept. Prints the commit the base points at.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "into", Usage: "merge into branch `BASE` (default: the task's base)"},
			&cli.BoolFlag{Name: "ff-only", Usage: "only fast-forward; fail if the base has moved on"},
			&cli.BoolFlag{Name: "no-ff", Usage: "always make a merge commit"},
			&cli.BoolFlag{Name: "squash", Usage: "make one commit on the base with all of the task's changes"},
			&cli.BoolFlag{Name: "rebase", Usage: "rebase the task onto the base, then fast-forward"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "the merge or squash commit's message `MSG`"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the task's worktree, branch and record"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			arg, err := oneArg(c, "TASK")
			if err != nil {
				return err
			}
			mode, err := mergeMode(c)
			if err != nil {
				return err
			}
			m, ent, err := e.findTask(c.Context, "merge", arg)
			if err != nil {
				return err
			}
			res, err := e.handlers(m).workflow.Merge(c.Context, ent, workflow.MergeOptions{
				Into: c.String("into"), Mode: mode, Message: c.String("message"), Keep: c.Bool("keep"),
			})
			if err != nil {
				return err
			}
			e.reportMerge(res)
			if c.Bool("json") {
				return writeJSON(e.stdout, res)
			}
			_, err = fmt.Fprintln(e.stdout, res.Commit) // terminal: a commit id git printed
			return err
		},
	}
}

// mergeMode reads the mode flags, which exclude each other.
func mergeMode(c *cli.Context) (workflow.MergeMode, error) {
	mode := workflow.MergeDefault
	for _, m := range []workflow.MergeMode{workflow.MergeFFOnly, workflow.MergeNoFF, workflow.MergeSquash, workflow.MergeRebase} {
		if !c.Bool(string(m)) {
			continue
		}
		if mode != workflow.MergeDefault {
			return "", exitcode.Usagef("--%s and --%s exclude each other", mode, m)
		}
		mode = m
	}
	return mode, nil
}

// reportMerge tells the user on stderr what the merge and the cleanup did.
func (e *env) reportMerge(res *workflow.MergeResult) {
	if res.How == workflow.HowAlreadyMerged {
		e.infof("%s is merged into %s already", res.Branch, res.Into)
	} else {
		e.infof("merged %s into %s (%s): %s is at %s", res.Branch, res.Into, res.How, res.Into, text.ShortID(res.Commit))
	}
	switch {
	case res.Kept != "":
		e.warnf("kept task %q: %s", res.Task, res.Kept)
	case res.Removal != nil:
		e.reportRemoval(res.Removal, removal.RemoveOptions{})
	}
}
