package cli

import (
	"context"
	"os"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/task"
)

// surveyOptions are the survey's options for this user: who made what is
// told from their home folder and CODEX_HOME.
func surveyOptions(m *task.Manager, size bool) inspect.SurveyOptions {
	return inspect.SurveyOptions{Size: size, Env: madeby.EnvFrom(os.Getenv, m.Settings.IgnoreCase)}
}

// withFacts adds to list --all's views what every worktree holds and its
// verdict (SPEC §20), from the survey of the listing already made: the
// tasks' statuses are not read again. The main worktree's changes and
// unpushed commits are read too: list --all shows them (DIRTY, unpushed).
func withFacts(ctx context.Context, in *inspect.Inspector, m *task.Manager, views []taskView, lives []inspect.Live, wts []git.Worktree, size bool) {
	o := surveyOptions(m, size)
	o.Main = true
	facts := in.FactsOf(ctx, lives, wts, o)
	byPath := make(map[string]*inspect.Facts, len(facts))
	for i := range facts {
		byPath[fsutil.PathKey(facts[i].Path)] = &facts[i]
	}
	for i := range views {
		if views[i].Record == nil {
			continue
		}
		if f := byPath[fsutil.PathKey(views[i].Path)]; f != nil {
			views[i].addFacts(f)
		}
	}
}

// addFacts fills the survey's fields of a view; a worktree without a
// record also gets the status and size its view lacks.
func (v *taskView) addFacts(f *inspect.Facts) {
	v.MadeBy, v.Verdict, v.InUse = string(f.MadeBy), f.Verdict, string(f.InUse)
	if f.Missing {
		return
	}
	unpushed, last := f.Unpushed, f.LastActivity
	v.Unpushed, v.LastActivity = &unpushed, &last
	if v.Unmanaged {
		dirty := f.Dirty
		v.Dirty = &dirty
		v.Record.Locked = f.Locked
		if f.Size >= 0 {
			size := f.Size
			v.SizeBytes = &size
		}
	}
}

// activeCell is how long ago a worktree was last touched.
func activeCell(now time.Time, t *time.Time) cell {
	if t == nil {
		return cell{"-", nil}
	}
	return cell{age(now, *t), nil}
}

// verdictCell is the verdict, green when the worktree can go.
func (e *env) verdictCell(v taskView) cell {
	switch v.Verdict {
	case "":
		return cell{"-", nil}
	case inspect.Safe:
		return cell{v.Verdict, e.out.green}
	}
	return cell{v.Verdict, e.out.yellow}
}
