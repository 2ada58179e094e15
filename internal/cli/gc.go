package cli

import (
	"fmt"
	"strings"

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
			"recently used first. Dirty or unpushed work is kept and reported. Over wt.maxTotalSize, idle tasks' " +
			"build output goes first, then warm pool entries, then tasks. --reclaim does only the first: the folders " +
			"wt.reclaim names that git ignores whole, never a tracked or unignored file, never through a symlink.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be done and do nothing"},
			&cli.StringFlag{Name: "max-age", Usage: "remove worktrees unused for longer than `DUR` (7d, 36h); overrides wt.maxAge"},
			&cli.IntFlag{Name: "max-count", Usage: "keep at most `N` task worktrees; overrides wt.maxCount"},
			&cli.BoolFlag{Name: "force", Usage: "also delete dirty orphans, and prune when most worktrees look missing"},
			&cli.BoolFlag{Name: "merged", Usage: "ask gh once for the tasks' pull requests, record their states, and remove the clean tasks whose PR was merged with every commit of their branch (default: wt.gcMerged)"},
			&cli.BoolFlag{Name: "foreign", Usage: "instead, remove the worktrees git-wt did not make (Claude Code's, Codex's, plain git's, ...) whose verdict in list --all is safe, as git worktree remove would: never forced, no branch deleted"},
			&cli.BoolFlag{Name: "closed", Usage: "with --merged, also remove the clean tasks whose PR was closed and whose commits are all pushed"},
			&cli.BoolFlag{Name: "reclaim", Usage: "only delete the build output (wt.reclaim folders git ignores) of tasks idle for wt.reclaimAfter, not locked, no process working in them; they keep their worktrees, and git wt init sets them up again"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			// A flag given, even as 0 (no limit), overrides the setting:
			// IsSet, not the zero value, tells them apart (SPEC §14).
			o := policy.GCOptions{DryRun: c.Bool("dry-run"), Force: c.Bool("force"), Reclaim: c.Bool("reclaim")}
			if o.Reclaim {
				for _, f := range []string{"max-age", "max-count", "force", "merged", "closed"} {
					if c.IsSet(f) {
						return exitcode.Usagef("--reclaim does not go with --%s: it deletes only build output", f)
					}
				}
			}
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
			if !o.Reclaim && (c.Bool("merged") || c.Bool("closed") || !c.IsSet("merged") && m.Settings.GCMerged) {
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
				report.Reclaim = nonNil(report.Reclaim)
				if err := writeJSON(e.stdout, struct {
					*policy.GCReport
					ReclaimedBytes int64              `json:"reclaimed_bytes"`
					Pool           []poolDrainView    `json:"pool"`
					Merged         []removal.Retained `json:"merged,omitempty"`
				}{report, reclaimedBytes(report.Reclaim), poolDrainViews(c.Context, report.Pool), merged}); err != nil {
					return err
				}
				return gcFailed(report, merged)
			}
			for _, r := range merged {
				// terminal: the outcome is git-wt's own word
				fmt.Fprintf(e.stdout, "%s: %s (%s) [%s]\n", e.out.yellow("merged"), text.Terminal(r.Path), text.TerminalLine(r.Reason), r.Outcome)
			}
			if len(report.Orphans)+len(report.Retention)+len(report.Pool)+len(report.Reclaim)+len(merged) == 0 {
				e.infof("nothing to clean")
			}
			e.printReclaimed(report.Reclaim)
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

// reclaimedBytes is what a reclaim freed (in a dry run: would free) in all.
func reclaimedBytes(rs []removal.Reclaimed) int64 {
	var n int64
	for _, r := range rs {
		if r.Outcome == removal.OutcomeReclaimed || r.Outcome == removal.OutcomeWouldReclaim {
			n += r.Bytes
		}
	}
	return n
}

// printReclaimed prints a line per task whose build output gc looked at,
// then the total freed (would be, in a dry run).
func (e *env) printReclaimed(rs []removal.Reclaimed) {
	tasks, did := 0, ""
	for _, r := range rs {
		outcome := r.Outcome
		if r.Outcome == removal.OutcomeReclaimed || r.Outcome == removal.OutcomeWouldReclaim {
			tasks, did = tasks+1, r.Outcome
			outcome += " " + settings.FormatSize(r.Bytes)
		}
		// terminal: the outcome's words are git-wt's own, its reasons quoted
		fmt.Fprintf(e.stdout, "%s: %s (%s) [%s]\n", e.out.yellow("reclaim"), text.Terminal(r.Path), text.Terminal(strings.Join(r.Folders, ", ")), text.TerminalLine(outcome))
	}
	if tasks > 0 {
		e.infof("%s %s of build output in %d %s", did, settings.FormatSize(reclaimedBytes(rs)), tasks, text.Plural(tasks, "task", "tasks"))
	}
}
