package cli

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

func listCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list task worktrees with their state and status",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.BoolFlag{Name: "no-status", Usage: "skip git status (dirty, ahead/behind, merged): faster"},
			&cli.BoolFlag{Name: "size", Usage: "add each worktree's disk use, and the build output gc --reclaim would free there (RECLAIM)"},
			&cli.BoolFlag{Name: "all", Usage: "also list the main worktree and worktrees git-wt did not make"},
			&cli.BoolFlag{Name: "remote", Usage: "list every machine's claims on wt.claimRemote (or on the remote named after the flag) instead"},
			&cli.BoolFlag{Name: "machine", Usage: "list every repository on this machine instead: those git-wt ran in and those under agent runners' worktree folders"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("machine") {
				return e.listMachine(c)
			}
			if c.NArg() > 1 || c.NArg() == 1 && !c.Bool("remote") {
				return noArgs(c)
			}
			m, err := e.manager(c.Context, "list")
			if err != nil {
				return err
			}
			if c.Bool("remote") {
				return e.listRemote(c, m)
			}
			o := inspect.LiveOptions{Status: !c.Bool("no-status"), Size: c.Bool("size"), Worktrees: c.Bool("all")}
			lives, wts, err := e.handlers(m).inspect.Inspect(c.Context, o)
			if err != nil {
				return err
			}
			sort.SliceStable(lives, func(i, j int) bool { return lives[i].Entry.Slug < lives[j].Entry.Slug })
			views := make([]taskView, 0, len(lives))
			for i := range lives {
				if lives[i].Entry.Err != nil {
					// Not a task (SPEC §7): doctor reports it.
					e.warnf("skipping %v (run git wt doctor)", lives[i].Entry.Err)
					continue
				}
				if notLinked := (*git.NotLinkedError)(nil); errors.As(lives[i].StatusErr, &notLinked) {
					// Its .git file or git's entry was changed (SPEC
					// §19): no git ran there, and DIRTY shows "?".
					e.warnf("cannot read the status of %s: %v", lives[i].Entry.Slug, notLinked)
				}
				if unsafe := (*git.UnsafeGitDirError)(nil); errors.As(lives[i].StatusErr, &unsafe) {
					// A repository nested in the task runs a program
					// (SPEC §19): no git ran there, and DIRTY shows "?".
					e.warnf("cannot read the status of %s: %v", lives[i].Entry.Slug, unsafe)
				}
				views = append(views, newTaskView(&lives[i], o, m.Settings.StaleAfter))
			}
			if n := len(m.Store.LegacyRefs()); n > 0 {
				e.warnf("%d task %s still under %s, where an earlier git-wt wrote them and where they shadow the branches wt/<slug> for plain git: run git wt doctor --fix to move them to %s",
					n, text.Plural(n, "record is", "records are"), record.LegacyPrefix, record.RefPrefix)
			}
			if c.Bool("all") {
				views = append(unmanagedViews(wts, lives, m.Place.InPool), views...)
				if o.Status {
					withFacts(c.Context, e.handlers(m).inspect, m, views, lives, wts, o.Size)
				}
			}
			if c.Bool("json") {
				return writeJSON(e.stdout, views)
			}
			return e.listTable(views, o)
		},
	}
}

// unmanagedViews are the worktrees without a record: the main one first,
// then those made by plain git or another tool, and the warm pool's
// entries (state pooled), which inPool tells.
func unmanagedViews(wts []git.Worktree, lives []inspect.Live, inPool func(string) bool) []taskView {
	managed := map[string]bool{}
	for _, l := range lives {
		if l.Entry.Record != nil {
			managed[fsutil.PathKey(l.Entry.Record.Path)] = true
		}
	}
	var views []taskView
	for _, wt := range wts {
		if managed[fsutil.PathKey(wt.Path)] || wt.Bare {
			continue
		}
		branch := strings.TrimPrefix(wt.Branch, "refs/heads/")
		rec := &record.Record{Path: wt.Path, Branch: branch}
		if inPool(wt.Path) {
			rec.State = record.Pooled
		}
		views = append(views, taskView{
			Record:     rec,
			Exists:     true,
			Head:       wt.Head,
			CheckedOut: branch,
			Unmanaged:  true,
			GitLocked:  wt.Locked,
		})
	}
	return views
}

// listTable prints the human table of `git wt list`.
func (e *env) listTable(views []taskView, o inspect.LiveOptions) error {
	if len(views) == 0 {
		e.infof("no task worktrees (create one with git wt new TASK)")
		return nil
	}
	// On a narrow terminal the columns that say least about what to do
	// next go first: USED, AGE, PR, AHEAD/BEHIND, then RECLAIM and SIZE (asked for
	// with --size, so kept longest). TASK, BRANCH, STATE, DIRTY and PATH
	// always stay: TASK, BRANCH and PATH are cut instead (PATH keeping
	// its end, which tells worktrees apart). With --all's survey, ACTIVE
	// goes first, MADE BY and then VERDICT, what to do next, last of all.
	t := &table{
		header: []string{"TASK", "BRANCH", "STATE", "DIRTY", "AHEAD/BEHIND", "AGENT", "AGE", "USED", "PR", "PATH"},
		cut:    map[string]bool{"TASK": false, "BRANCH": false, "PATH": true},
		drop:   []string{"ACTIVE", "USED", "AGE", "PR", "AHEAD/BEHIND", "RECLAIM", "SIZE", "AGENT", "MADE BY", "VERDICT"},
	}
	surveyed := o.Worktrees && o.Status
	if surveyed { // before PATH, which stays last but for SIZE
		t.header = append(t.header[:len(t.header)-1], "MADE BY", "ACTIVE", "VERDICT", "PATH")
	}
	if o.Size {
		t.header = append(t.header, "SIZE", "RECLAIM")
	}
	now := time.Now()
	for _, v := range views {
		row := []cell{
			{v.Task, nil},
			{v.Branch, e.out.cyan},
			e.stateCell(v),
			e.dirtyCell(v),
			{aheadBehind(v), nil},
			e.agentCell(now, v.Agent),
			{age(now, v.CreatedAt), nil},
			{age(now, v.LastAccessAt), nil},
			{prCell(v.PR), nil},
		}
		if surveyed {
			row = append(row, cell{cmp.Or(v.MadeBy, "-"), nil}, activeCell(now, v.LastActivity), e.verdictCell(v))
		}
		row = append(row, cell{v.Path, nil})
		if o.Size {
			row = append(row, cell{sizeText(v.SizeBytes), nil}, cell{sizeText(v.Reclaimable), nil})
		}
		t.add(row...)
	}
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}

func (e *env) stateCell(v taskView) cell {
	if v.Unmanaged {
		return cell{cmp.Or(string(v.State), "unmanaged"), e.out.faint} // a pool entry says pooled
	}
	parts := []string{string(v.State)}
	if !v.Exists {
		parts = []string{"missing"}
	}
	if v.Locked || v.GitLocked {
		parts = append(parts, "locked")
	}
	if v.Merged != nil && *v.Merged {
		parts = append(parts, "merged")
	}
	if len(v.Sparse) > 0 {
		parts = append(parts, "sparse")
	}
	if v.Reclaimed != nil {
		parts = append(parts, "reclaimed") // its build output went: git wt init sets it up again
	}
	if v.Init.Status == record.InitFailed || v.Init.Status == record.InitUntrusted {
		parts = append(parts, "init:"+string(v.Init.Status))
	}
	text := strings.Join(parts, ",")
	switch {
	case !v.Exists || v.State == record.Failed:
		return cell{text, e.out.red}
	case v.State == record.Active || v.State == record.Adopted:
		return cell{text, e.out.green}
	}
	return cell{text, e.out.yellow}
}

// agentCell says what the task's agent does and for how long: "claude
// working 12s", "gone" when its runner's process is proven dead.
func (e *env) agentCell(now time.Time, a *agentView) cell {
	switch {
	case a == nil:
		return cell{"-", nil}
	case a.Gone:
		return cell{"gone", e.out.red}
	}
	text := fmt.Sprintf("%s %s %s", a.Runner, a.State, age(now, a.Since))
	switch a.State {
	case agents.Working:
		return cell{text, e.out.green}
	case agents.Waiting:
		return cell{text, e.out.yellow}
	}
	return cell{text, e.out.faint}
}

func (e *env) dirtyCell(v taskView) cell {
	switch {
	case v.Dirty == nil:
		return cell{"-", nil}
	case *v.Dirty < 0:
		return cell{"?", e.out.red}
	case *v.Dirty > 0:
		return cell{fmt.Sprint(*v.Dirty), e.out.yellow}
	}
	return cell{"0", nil}
}

func aheadBehind(v taskView) string {
	if v.Ahead == nil || v.Behind == nil {
		return "-"
	}
	return fmt.Sprintf("+%d/-%d", *v.Ahead, *v.Behind)
}

func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return settings.FormatDuration(now.Sub(t))
}

func sizeText(n *int64) string {
	if n == nil {
		return "-"
	}
	return settings.FormatSize(*n)
}
