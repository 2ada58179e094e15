package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

func doctorCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "report (and with --fix repair) every way records, worktrees, branches and git's admin entries disagree",
		Description: "Exit 0 when all is well (or all was fixed), 1 when something was found and not fixed. " +
			"--fix rolls back creations whose process died (or marks them failed when their worktree holds work), " +
			"finishes merges whose process died, deletes lock files and unlocks worktrees that a killed git left, drops records of vanished worktrees, prunes " +
			"git's admin entries for vanished folders, adopts worktrees made without git-wt, deletes task " +
			"branches that lost their worktree and record (only when no commit is lost), clears what an " +
			"interrupted rm left, and moves the records an earlier git-wt wrote under refs/wt/ to refs/git-wt/tasks/. " +
			"Orphans younger than wt.orphanGrace are left alone; dirty ones need --force, and so does deleting " +
			"a record that cannot be read.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "repair what can be repaired without losing work"},
			&cli.BoolFlag{Name: "force", Usage: "with --fix: also delete dirty orphans, and prune when most worktrees look missing"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			m, err := e.manager(c.Context, "doctor")
			if err != nil {
				return err
			}
			// Admin entries git cannot read are repaired first (git cannot
			// list worktrees until then), and records an earlier git-wt left
			// under refs/wt/ move before the diagnosis: their worktrees
			// would look foreign.
			var first []*task.Problem
			if c.Bool("fix") {
				first = append(e.handlers(m).policy.RepairAdminEntries(c.Context), m.MoveLegacy(c.Context)...)
			}
			d, err := e.handlers(m).policy.Diagnose(c.Context)
			if err != nil {
				return err
			}
			ok := len(d.Problems) == 0
			if c.Bool("fix") {
				ok = e.handlers(m).policy.Repair(c.Context, d, task.RepairOptions{Force: c.Bool("force")})
			}
			for _, p := range first {
				ok = ok && p.Outcome == task.Fixed
			}
			d.Problems = append(first, d.Problems...)
			if c.Bool("json") {
				if err := writeJSON(e.stdout, nonNil(d.Problems)); err != nil {
					return err
				}
			} else {
				e.printProblems(d.Problems)
			}
			if !ok {
				return &silentError{code: 1}
			}
			return nil
		},
	}
}

// printProblems prints one line per problem on stdout: the report is the
// command's data.
func (e *env) printProblems(problems []*task.Problem) {
	if len(problems) == 0 {
		e.infof("all is well: records, worktrees, branches and git's admin entries agree")
		return
	}
	for _, p := range problems {
		where := p.Path
		switch {
		case where != "":
		case p.Branch != "":
			where = "branch " + p.Branch
		default:
			where = p.Ref
		}
		line := fmt.Sprintf("%s: %s", where, p.Detail)
		switch {
		case p.Outcome != "":
			line += " [" + p.Outcome + "]"
		case p.Fix != "":
			line += " (--fix: " + p.Fix + ")"
		}
		fmt.Fprintf(e.stdout, "%s: %s\n", e.out.yellow(string(p.Kind)), text.TerminalLine(line)) // terminal: the kind is git-wt's own word
	}
}
