package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/policy"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/git-wt/git-wt/internal/workflow"
)

func gcCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "gc",
		Aliases: []string{"prune"},
		Usage:   "clean orphans and apply the retention policy (wt.maxAge, wt.maxCount, wt.maxTotalSize)",
		Description: "Orphans: records whose worktree is gone, git admin entries whose folder is gone, task " +
			"branches with neither worktree nor record (when no commit is lost), creations whose process died. " +
			"Retention then removes clean, unlocked, unused worktrees whose commits are merged or pushed, least " +
			"recently used first. Dirty or unpushed work is kept and reported.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be done and do nothing"},
			&cli.StringFlag{Name: "max-age", Usage: "remove worktrees unused for longer than `DUR` (7d, 36h); overrides wt.maxAge"},
			&cli.IntFlag{Name: "max-count", Usage: "keep at most `N` task worktrees; overrides wt.maxCount"},
			&cli.BoolFlag{Name: "force", Usage: "also delete dirty orphans, and prune when most worktrees look missing"},
			&cli.BoolFlag{Name: "merged", Usage: "ask gh once for the tasks' pull requests, record their states, and remove the clean tasks whose PR was merged with every commit of their branch (default: wt.gcMerged)"},
			&cli.BoolFlag{Name: "foreign", Usage: "instead, remove the worktrees git-wt did not make (Claude Code's, Codex's, plain git's, ...) whose verdict in list --all is safe, as git worktree remove would: never forced, no branch deleted"},
			&cli.BoolFlag{Name: "closed", Usage: "with --merged, also remove the clean tasks whose PR was closed and whose commits are all pushed"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			// A flag given, even as 0 (no limit), overrides the setting:
			// IsSet, not the zero value, tells them apart (SPEC §14).
			o := policy.GCOptions{DryRun: c.Bool("dry-run"), Force: c.Bool("force")}
			if c.IsSet("max-age") {
				d, err := settings.ParseDuration(c.String("max-age"))
				if err != nil {
					return exitcode.Usagef("--max-age: %v", err)
				}
				o.MaxAge = &d
			}
			if c.IsSet("max-count") {
				n := c.Int("max-count")
				if n < 0 {
					return exitcode.Usagef("--max-count must not be negative")
				}
				o.MaxCount = &n
			}
			m, err := e.manager(c.Context, "gc")
			if err != nil {
				return err
			}
			if c.Bool("foreign") {
				for _, other := range []string{"max-age", "max-count", "force", "merged", "closed"} {
					if c.IsSet(other) {
						return exitcode.Usagef("--foreign does not take --%s: it removes only the safe worktrees git-wt did not make", other)
					}
				}
				return e.gcForeign(c, m)
			}
			var merged []removal.Retained
			if c.Bool("merged") || c.Bool("closed") || !c.IsSet("merged") && m.Settings.GCMerged {
				// First: a task the forge merged goes as merged, not by age.
				mo := workflow.MergedOptions{Closed: c.Bool("closed"), DryRun: o.DryRun}
				if merged, err = e.handlers(m).workflow.CleanMergedPRs(c.Context, mo); err != nil {
					return err
				}
			}
			report, err := e.handlers(m).policy.GC(c.Context, o)
			if err != nil {
				return err
			}
			e.releaseOrphanClaims(c.Context, m, o.DryRun)
			if c.Bool("json") {
				report.Orphans = nonNil(report.Orphans)
				report.Retention = nonNil(report.Retention)
				if err := writeJSON(e.stdout, struct {
					*policy.GCReport
					Pool   []poolDrainView    `json:"pool"`
					Merged []removal.Retained `json:"merged,omitempty"`
				}{report, poolDrainViews(c.Context, report.Pool), merged}); err != nil {
					return err
				}
				return gcFailed(report, merged)
			}
			for _, r := range merged {
				// terminal: the outcome is git-wt's own word
				fmt.Fprintf(e.stdout, "%s: %s (%s) [%s]\n", e.out.yellow("merged"), text.Terminal(r.Path), text.TerminalLine(r.Reason), r.Outcome)
			}
			if len(report.Orphans)+len(report.Retention)+len(report.Pool)+len(merged) == 0 {
				e.infof("nothing to clean")
			}
			for _, d := range report.Pool {
				// terminal: the outcome is git-wt's own word
				fmt.Fprintf(e.stdout, "%s: %s (%s) [%s]\n", e.out.yellow("pool"), text.Terminal(d.Path), text.TerminalLine(d.Reason), d.Outcome)
			}
			if len(report.Orphans) > 0 {
				e.printProblems(report.Orphans)
			}
			for _, r := range report.Retention {
				// terminal: the outcome is git-wt's own word
				fmt.Fprintf(e.stdout, "%s: %s (%s) [%s]\n", e.out.yellow("retention"), text.Terminal(r.Path), text.TerminalLine(r.Reason), r.Outcome)
			}
			return gcFailed(report, merged)
		},
	}
}

// gcFailed is gc's end, once its report is out: exit 1 when a repair it
// tried failed, exit 3 when --merged kept a task to protect commits made
// after its pull request was merged (SPEC §19, kind unmerged); the
// highest of those met (SPEC §2).
func gcFailed(report *policy.GCReport, merged []removal.Retained) error {
	code := 0
	if report.Failed() {
		code = exitcode.Failed
	}
	for _, r := range merged {
		if r.Kind == exitcode.KindUnmerged {
			code = max(code, exitcode.Refused)
		}
	}
	if code == 0 {
		return nil
	}
	return &silentError{code: code}
}
