package policy

import (
	"context"

	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Foreign removes worktrees git-wt did not make (gc --foreign, SPEC §20).
type Foreign struct {
	*task.Manager
	survey surveyor
}

// surveyor is what gc --foreign needs of inspect: every worktree's facts,
// and one worktree's read again.
type surveyor interface {
	Survey(ctx context.Context, o inspect.SurveyOptions) ([]inspect.Facts, error)
	FactsOfOne(ctx context.Context, path string, o inspect.SurveyOptions) (inspect.Facts, bool, error)
}

// NewForeign returns gc --foreign's handler of m's repository.
func NewForeign(m *task.Manager, s surveyor) *Foreign {
	return &Foreign{Manager: m, survey: s}
}

// What gc --foreign did with a worktree.
const (
	ForeignRemoved     = "removed"
	ForeignWouldRemove = "would_remove"
	ForeignKept        = "kept"
	ForeignFailed      = "failed"
)

// ForeignOutcome is one worktree git-wt did not make, and what gc
// --foreign did with it.
type ForeignOutcome struct {
	Path    string `json:"path"`
	Branch  string `json:"branch,omitempty"`
	MadeBy  string `json:"made_by"`
	Verdict string `json:"verdict"` // as last read: why it was kept, or safe
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"` // what git said when the removal failed
}

// RemoveForeign removes, one by one, the worktrees git-wt did not make
// whose verdict is safe, each read again under the repository lock just
// before it goes (a file written since the survey keeps it), with plain
// `git worktree remove`: never forced (git refuses a dirty or locked
// worktree itself), no branch deleted. The main worktree and git-wt's own
// are never touched, nor reported; every other worktree is reported with
// its verdict. A dry run reads and removes nothing.
func (f *Foreign) RemoveForeign(ctx context.Context, o inspect.SurveyOptions, dryRun bool) ([]ForeignOutcome, error) {
	facts, err := f.survey.Survey(ctx, o)
	if err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "gc-foreign:surveyed")
	var out []ForeignOutcome
	for _, fact := range facts {
		if fact.Main || fact.MadeBy == madeby.GitWT {
			continue
		}
		r := ForeignOutcome{Path: fact.Path, Branch: fact.Branch, MadeBy: string(fact.MadeBy), Verdict: fact.Verdict, Outcome: ForeignKept}
		switch {
		case fact.Verdict != inspect.Safe:
		case dryRun:
			r.Outcome = ForeignWouldRemove
		default:
			if err := f.removeIfSafe(ctx, &r, o); err != nil {
				return out, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// removeIfSafe reads the worktree's facts again under the lock and
// removes it if it is still another tool's and safe.
func (f *Foreign) removeIfSafe(ctx context.Context, r *ForeignOutcome, o inspect.SurveyOptions) error {
	l, err := f.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	again, listed, err := f.survey.FactsOfOne(ctx, r.Path, o)
	switch {
	case err != nil:
		return err
	case !listed:
		r.Verdict = "gone" // removed by someone else meanwhile
		return nil
	case again.MadeBy == madeby.GitWT:
		r.MadeBy, r.Verdict = string(again.MadeBy), "adopted" // a task now: gc's own rules apply
		return nil
	}
	r.Verdict = again.Verdict
	if again.Verdict != inspect.Safe {
		return nil
	}
	rec := &record.Record{Path: r.Path, Branch: r.Branch}
	if err := f.Git.RemoveCleanWorktree(ctx, f.Repo.MainDir, r.Path); err != nil {
		r.Outcome, r.Error = ForeignFailed, err.Error()
		f.LogEvent(rec, "refused", "gc --foreign: "+err.Error())
		return nil
	}
	r.Outcome = ForeignRemoved
	f.LogEvent(rec, "removed", "gc --foreign: made by "+r.MadeBy+", safe")
	return nil
}
