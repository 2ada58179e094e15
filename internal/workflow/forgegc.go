package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// MergedOptions are gc's flags for pull requests merged on the forge.
type MergedOptions struct {
	Closed bool // also tasks whose PR was closed, when their commits are all pushed
	DryRun bool
}

// CleanMergedPRs is `gc --merged` (SPEC §17, §19): one gh call lists the
// repository's pull requests; each task's PR (prOf) has its state
// recorded, with its created_at; the tasks whose PR is MERGED (with
// Closed: CLOSED and every commit on a remote) are removed as the
// post-merge hook removes them — only the clean, unlocked ones no process
// works in, wt.preRemove first, and a merged one only when every commit
// of its branch is in the PR's head: commits made after the merge keep
// the task, its PR not recorded as merged (rm would then count the
// branch as merged). Adopted tasks, which only an rm that names them
// removes, and tasks mid-operation are left alone. A dry run records
// nothing.
func (m *Flow) CleanMergedPRs(ctx context.Context, o MergedOptions) ([]removal.Retained, error) {
	all, err := m.Store.All(ctx)
	if err != nil {
		return nil, err
	}
	var cands []*record.Entry
	for i := range all {
		if rec := all[i].Record; rec != nil && rec.Branch != "" && (rec.State == record.Active || rec.State == record.Failed) {
			cands = append(cands, &all[i])
		}
	}
	if len(cands) == 0 {
		return nil, nil // no task: no need to ask the forge
	}
	list, err := gh.Runner{Dir: m.Repo.MainDir}.AllPRs(ctx)
	if err != nil {
		return nil, exitcode.Failedf("cannot list the pull requests through gh (offline, or not signed in?): %v; nothing was removed", err)
	}
	var out []removal.Retained
	for _, e := range cands {
		l := m.prOf(ctx, e.Record, list)
		if l == nil {
			continue
		}
		pr := l.PR
		report := func(outcome string) *removal.Retained {
			out = append(out, removal.Retained{Task: e.Record.Task, Path: e.Record.Path, Reason: prReason(&pr), Outcome: outcome})
			return &out[len(out)-1]
		}
		if pr.State == "MERGED" && !m.contains(ctx, pr.HeadOID, task.BranchRef(e.Record.Branch)) {
			// A refusal to protect data (SPEC §19): gc exits 3.
			report(fmt.Sprintf("kept: its branch has commits made after pull request #%d was merged (push them and open another pull request)", pr.Number)).Kind = exitcode.KindUnmerged
			continue
		}
		if !o.DryRun {
			if err := m.Update(ctx, e, func(r *record.Record) error { r.PR = &pr; return nil }); err != nil {
				report("kept: " + err.Error())
				continue
			}
		}
		if why := m.mayClean(ctx, e.Record, &pr, o); why != "" {
			if pr.State == "MERGED" || pr.State == "CLOSED" && o.Closed {
				report("kept: " + why)
			}
			continue
		}
		r := m.RemoveEntry(ctx, e, removal.RemoveOptions{DryRun: o.DryRun, KeepUnmerged: pr.State != "MERGED"})
		switch {
		case r.Err != nil:
			report("kept: " + r.Err.Error())
		case o.DryRun:
			report("would remove")
		default:
			report("removed")
		}
	}
	return out, nil
}

// prOf is the task's pull request in list (SPEC §19): the number
// recorded, else the newest whose head is the task's branch and that was
// opened after the task was made (a pull request of an earlier task of
// the same branch name is never this one's); and either way one whose
// head commit is on the task's branch.
func (m *Flow) prOf(ctx context.Context, rec *record.Record, list []gh.Listed) *gh.Listed {
	for i := range list {
		if namesTask(rec, &list[i]) && m.contains(ctx, task.BranchRef(rec.Branch), list[i].PR.HeadOID) {
			return &list[i]
		}
	}
	return nil
}

// namesTask says whether l may be rec's pull request by what gh says of
// it: its number is the one recorded, or, with none recorded, its head
// is the task's branch and it was opened after the task was made.
func namesTask(rec *record.Record, l *gh.Listed) bool {
	if rec.PR != nil && rec.PR.Number > 0 {
		return l.PR.Number == rec.PR.Number
	}
	return l.HeadBranch == rec.Branch && l.PR.CreatedAt != nil && l.PR.CreatedAt.After(rec.CreatedAt)
}

// contains says whether commit is in the history of rev; a commit gh
// named that is not here, or none, is in no history.
func (m *Flow) contains(ctx context.Context, rev, commit string) bool {
	if commit == "" || rev == "" {
		return false
	}
	ok, err := m.Git.History().IsAncestor(ctx, m.Repo.MainDir, commit, rev)
	return err == nil && ok
}

// mayClean says why a task whose PR is pr stays ("" when it may go): its
// PR is open, or closed without --closed, or closed with commits that
// are on no remote.
func (m *Flow) mayClean(ctx context.Context, rec *record.Record, pr *record.PR, o MergedOptions) string {
	switch {
	case pr.State == "MERGED":
		return ""
	case pr.State != "CLOSED" || !o.Closed:
		return "its pull request is " + text.Terminal(strings.ToLower(pr.State))
	}
	n, err := m.UnmergedCommits(ctx, rec)
	switch {
	case err != nil:
		return "cannot tell whether its commits are pushed: " + err.Error()
	case n > 0:
		return fmt.Sprintf("its pull request was closed, and %d of its commits are on no remote", n)
	}
	return ""
}

// prReason is why gc --merged looked at a task, for its report: the
// state quoted, as it comes from the forge.
func prReason(pr *record.PR) string {
	return fmt.Sprintf("pull request #%d %s", pr.Number, text.Terminal(strings.ToLower(pr.State)))
}
