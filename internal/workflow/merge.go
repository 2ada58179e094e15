package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// MergeMode is how `git wt merge` brings a task's branch into its base.
type MergeMode string

// The modes of `git wt merge`.
const (
	MergeDefault MergeMode = ""        // as git merge: fast-forward when possible, else a merge commit
	MergeFFOnly  MergeMode = "ff-only" // fast-forward, or fail
	MergeNoFF    MergeMode = "no-ff"   // always a merge commit
	MergeSquash  MergeMode = "squash"  // one new commit on the base with all of the task's changes
	MergeRebase  MergeMode = "rebase"  // rebase the task onto the base, then fast-forward
)

// How a merge went, as MergeResult.How says it.
const (
	HowFastForward   = "fast-forward"
	HowMerge         = "merge"
	HowSquash        = "squash"
	HowRebase        = "rebase"
	HowAlreadyMerged = "already-merged"
)

// MergeOptions are the flags of `git wt merge`.
type MergeOptions struct {
	Into    string // a branch; default the task's base
	Mode    MergeMode
	Message string // of the merge or squash commit; default one naming the branch
	Keep    bool   // keep the worktree, branch and record
}

// MergeResult says what `git wt merge` did.
type MergeResult struct {
	Task    string           `json:"task"`
	Branch  string           `json:"branch"`
	Into    string           `json:"into"`
	How     string           `json:"how"`
	Commit  string           `json:"commit"`            // where the base points now
	Removal *removal.Removal `json:"removal,omitempty"` // the cleanup; none with --keep
	Kept    string           `json:"kept,omitempty"`    // why the cleanup kept the task
}

// Merge merges the task's branch into its base (or o.Into), then removes
// the task unless o.Keep (SPEC §2):
//
//   - if a worktree has the base checked out, the merge happens there, and
//     that worktree must be clean with nothing in progress (else exit 3,
//     nothing changed);
//   - if none has, the merge is made without touching any checkout;
//   - a conflict is taken back, leaves everything as it was, and exits 1
//     naming the files.
//
// Merges into one base wait for each other (a lock of their own). The task
// is in state "merging" from the start of the merge to its removal, so a
// merge killed half-way shows (git wt show, doctor). Once git is changing
// things, an interrupt lets the step end and then takes it back.
func (m *Flow) Merge(ctx context.Context, e *record.Entry, o MergeOptions) (*MergeResult, error) {
	into, err := m.mergeTarget(ctx, e.Record, o.Into)
	if err != nil {
		return nil, err
	}
	l, err := m.MergeLock(ctx, into)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	if err := m.Reload(ctx, e); err != nil {
		return nil, err
	}
	p, err := m.planMerge(ctx, e.Record, into, o)
	if err != nil {
		return nil, err
	}
	p.interrupted = func(cause error) bool { return git.Interrupted(ctx, cause) }
	prev := e.Record.State
	if prev == record.Merging {
		prev = record.Active // a merge that was killed left it so
	}
	// The merging process signs the record, so that doctor can tell a
	// merge in progress from one whose process died.
	err = m.Transition(ctx, e, record.Merging, func(r *record.Record) {
		r.MergeTip, r.MergeInto = p.taskTip, "" // a killed merge's are replaced
		if into != r.Base {
			r.MergeInto = into
		}
	})
	if err != nil {
		return nil, err
	}
	// A merge may outlast wt.orphanGrace (SPEC §15): its lease ends before
	// the record is written again.
	stop := m.Renew(e)
	task.Checkpoint(ctx, "merge:merging")
	res := &MergeResult{Task: p.rec.Task, Branch: p.rec.Branch, Into: p.intoName, How: HowAlreadyMerged, Commit: p.baseTip}
	if !p.merged {
		res.How, res.Commit, err = m.applyMerge(context.WithoutCancel(ctx), p)
		stop()
		if err != nil {
			m.SetState(e, prev)
			m.LogEvent(p.rec, "merge-failed", err.Error())
			if left := (leftChanges{}); ctx.Err() != nil && !errors.As(err, &left) {
				return nil, ctx.Err() // taken back: "interrupted, rolled back"
			}
			return nil, err
		}
		m.LogEvent(p.rec, "merged", fmt.Sprintf("into %s (%s), now at %s", p.intoName, res.How, res.Commit))
	}
	stop()
	l.Release()
	if ctx.Err() != nil {
		m.SetState(e, prev)
		return nil, exitcode.Failedf("interrupted after merging %s into %s (now at %s): the task was kept; run git wt merge %s again to remove it", p.rec.Branch, p.intoName, res.Commit, text.ShellQuote(p.rec.Task))
	}
	if o.Keep {
		m.SetState(e, prev)
		return res, nil
	}
	return res, m.cleanUpMerged(ctx, e, p, prev, res)
}

// cleanUpMerged removes a merged task as rm would, deleting its branch if
// it still points at the commit merged. What rm would refuse (a locked
// worktree, one in use) is kept, and the merge still succeeds.
func (m *Flow) cleanUpMerged(ctx context.Context, e *record.Entry, p *mergePlan, prev record.State, res *MergeResult) error {
	task.Checkpoint(ctx, "merge:cleanup")
	r := m.RemoveEntry(ctx, e, removal.RemoveOptions{MergedTip: p.taskTip, PutBack: prev})
	res.Removal = r
	switch exitcode.Of(r.Err) {
	case exitcode.OK:
		return nil
	case exitcode.Refused:
		if e.Record.State == record.Merging { // refused before the removal began
			m.SetState(e, prev)
		}
		res.Kept, r.Err = r.Err.Error(), nil
		return nil
	}
	// Not left "merging": the merge is done. A removal that began was put
	// back, or left "removing" for the next rm to finish, as it says.
	if fresh, err := m.Store.Get(ctx, e.Slug); err == nil && len(fresh) == 1 && e.Record.State == record.Merging {
		m.SetState(e, prev)
	}
	return exitcode.Failedf("merged %s into %s, but could not remove the task: %v", p.rec.Branch, p.intoName, r.Err)
}

// mergeTarget is the full ref of the branch to merge into: --into, else
// the task's base, which must be a local branch.
func (m *Flow) mergeTarget(ctx context.Context, rec *record.Record, into string) (string, error) {
	switch {
	case into != "":
		into = strings.TrimPrefix(into, "refs/heads/")
		if err := m.CheckBranchName(ctx, into); err != nil {
			return "", err
		}
		into = task.BranchRef(into)
	case strings.HasPrefix(rec.Base, "refs/heads/"):
		into = rec.Base
	default:
		return "", exitcode.Usagef("task %q started from %s, which is not a local branch: name the branch to merge it into with --into BRANCH", rec.Task, rec.Base)
	}
	if into == task.BranchRef(rec.Branch) {
		return "", exitcode.Usagef("cannot merge %s into itself: name another branch with --into", rec.Branch)
	}
	return into, nil
}
