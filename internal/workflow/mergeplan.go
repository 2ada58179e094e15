package workflow

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// mergePlan is what a merge works from, read under the merge lock.
type mergePlan struct {
	rec      *record.Record
	mode     MergeMode
	message  string
	into     string // full ref of the branch merged into
	intoName string
	baseTip  string // where into points
	taskTip  string // where the task's branch points
	baseDir  string // the worktree that has into checked out, or ""
	taskDir  string // the worktree that has the task's branch checked out, or ""
	merged   bool   // every commit of the task is in the base already
	ff       bool   // the base is an ancestor of the task: a fast-forward is possible
	// interrupted reports whether the user interrupted the command
	// (Ctrl-C) that failed with cause: git may then have stopped half-way.
	interrupted func(cause error) bool
}

// fastForward reports whether the merge is a fast-forward.
func (p *mergePlan) fastForward() bool {
	return p.ff && p.mode != MergeNoFF && p.mode != MergeSquash
}

// planMerge reads what the merge needs and refuses (exit 3, nothing
// changed) a merge that would mix with uncommitted work.
func (m *Flow) planMerge(ctx context.Context, rec *record.Record, into string, o MergeOptions) (*mergePlan, error) {
	if rec.State == record.Creating || rec.State == record.Initializing {
		return nil, m.Refuse(rec, "not-ready", "task %q is not ready (state %s): let git wt new finish, or run it again", rec.Task, rec.State)
	}
	p := &mergePlan{rec: rec, mode: o.Mode, into: into, intoName: strings.TrimPrefix(into, "refs/heads/")}
	tb, err := m.InspectBranch(ctx, rec.Branch)
	if err != nil {
		return nil, err
	}
	if !tb.Exists {
		return nil, exitcode.Failedf("branch %s of task %q no longer exists: nothing to merge", rec.Branch, rec.Task)
	}
	bb, err := m.InspectBranch(ctx, p.intoName)
	if err != nil {
		return nil, err
	}
	if !bb.Exists {
		return nil, exitcode.Usagef("there is no branch %s to merge %s into: name one with --into BRANCH", p.intoName, rec.Branch)
	}
	p.taskTip, p.taskDir, p.baseTip, p.baseDir = tb.SHA, tb.CheckedOut, bb.SHA, bb.CheckedOut
	if err := m.checkMergeWorktrees(ctx, p, o); err != nil {
		return nil, err
	}
	ahead, behind, err := m.AheadBehind(ctx, rec.Branch, into)
	if err != nil {
		return nil, err
	}
	p.merged, p.ff = ahead == 0, behind == 0
	if p.merged {
		return p, nil
	}
	if p.mode == MergeDefault {
		p.mode = m.configuredMergeMode()
	}
	switch {
	case p.mode == MergeFFOnly && !p.ff:
		return nil, exitcode.Failedf("cannot fast-forward %s to %s: %s has %d %s the task lacks; use --rebase, or merge without --ff-only", p.intoName, rec.Branch, p.intoName, behind, text.Plural(behind, "commit", "commits"))
	case p.mode == MergeRebase && !p.ff && p.taskDir != "":
		if _, err := os.Stat(p.taskDir); err != nil {
			return nil, exitcode.Failedf("%s, where %s is checked out, is missing, and the rebase would happen there: run git wt new %s to make it again, or merge without --rebase", p.taskDir, rec.Branch, text.ShellQuote(rec.Task))
		}
		if !fsutil.SamePath(p.taskDir, rec.Path) {
			if err := m.checkClean(ctx, rec, p.taskDir, "a rebase of "+rec.Branch+" needs it clean"); err != nil {
				return nil, err
			}
		}
	}
	p.message, err = m.mergeMessage(ctx, p, o.Message)
	return p, err
}

// checkMergeWorktrees refuses a merge into a worktree with uncommitted
// work, and a merge of a task whose worktree holds work the merge would
// leave out (and the cleanup then keep). With --keep that work stays where
// it is, so only a rebase, which needs a clean worktree, still refuses.
func (m *Flow) checkMergeWorktrees(ctx context.Context, p *mergePlan, o MergeOptions) error {
	rec, q := p.rec, text.ShellQuote(p.rec.Task)
	if p.baseDir != "" {
		hint := "commit or stash them, then run git wt merge " + q + " again"
		if rec.State == record.Merging {
			hint = "an interrupted git wt merge may have left them; look with git -C " + text.ShellQuote(p.baseDir) + " status (git-wt does not discard them)"
		}
		if err := m.checkClean(ctx, rec, p.baseDir, hint); err != nil {
			return err
		}
	}
	if task.RequireWorktree(rec) != nil || o.Keep && p.mode != MergeRebase {
		return nil
	}
	hint := "the merge would leave them out; commit them (git wt commit " + q + " -m MSG), or use --keep to merge only the commits"
	if p.mode == MergeRebase {
		hint = "a rebase needs a clean worktree; commit them first (git wt commit " + q + " -m MSG)"
	}
	return m.checkClean(ctx, rec, rec.Path, hint)
}

// checkClean refuses (exit 3) when the worktree at dir has uncommitted
// changes or an operation in progress: git-wt neither mixes its merge into
// someone's work nor resets it.
func (m *Flow) checkClean(ctx context.Context, rec *record.Record, dir, hint string) error {
	if op := m.Git.InProgress(ctx, dir); op != "" {
		return m.Refuse(rec, "in-progress", "%s is in the middle of %s: finish or abort it (see git -C %s status), then run git wt merge again", dir, op, text.ShellQuote(dir))
	}
	n, err := m.DirtyCount(ctx, dir)
	if err != nil {
		return m.Refuse(rec, "status-failed", "cannot read the status of %s (%v), so it counts as dirty", dir, err)
	}
	if n > 0 {
		return m.Refuse(rec, "dirty", "%s has %d uncommitted %s: %s", dir, n, text.Plural(n, "change", "changes"), hint)
	}
	return nil
}

// configuredMergeMode is what a plain `git merge` would do by the user's
// merge.ff setting (a .gitwt's was ignored, and is said).
func (m *Flow) configuredMergeMode() MergeMode {
	m.Settings.SayWarnings(m.Warn)
	v, ok := m.Settings.Get("merge.ff")
	if !ok {
		return MergeDefault
	}
	if strings.EqualFold(v.Value, "only") {
		return MergeFFOnly
	}
	if ff, err := settings.ParseBool(v.Value); err == nil && !ff {
		return MergeNoFF
	}
	return MergeDefault
}

// mergeMessage is the message of the merge or squash commit: the user's,
// else one like git's for a merge, and like GitHub's for a squash (the
// pull request's title, else the task's one commit message, else the task
// id, then a line per commit).
func (m *Flow) mergeMessage(ctx context.Context, p *mergePlan, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	if p.mode != MergeSquash {
		return fmt.Sprintf("Merge branch '%s' into %s", p.rec.Branch, p.intoName), nil
	}
	subjects, err := m.Git.History().Subjects(ctx, m.Repo.MainDir, p.baseTip+".."+p.taskTip)
	if err != nil {
		return "", err
	}
	title := p.rec.Task
	if pr := p.rec.PR; pr != nil && pr.Title != "" {
		title = pr.Title
		if pr.Number > 0 {
			title += fmt.Sprintf(" (#%d)", pr.Number)
		}
	} else if len(subjects) == 1 {
		return m.Git.History().Message(ctx, m.Repo.MainDir, p.taskTip)
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, s := range subjects {
		b.WriteString("\n* " + s)
	}
	return b.String(), nil
}
