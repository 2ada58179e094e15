package workflow

import (
	"context"
	"io"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Commit stages everything in the task's worktree (new files too, ignored
// files not: `git add -A`) and commits it with msg. It returns the commit
// the worktree's HEAD points at afterwards and whether it made one: with
// nothing to commit it makes none and that is no error. The user's commit
// hooks run; their output goes to hookOutput.
func (m *Flow) Commit(ctx context.Context, rec *record.Record, msg string, hookOutput io.Writer) (sha string, made bool, err error) {
	if strings.TrimSpace(msg) == "" {
		return "", false, exitcode.Usagef("the commit message is empty: give one with -m MSG")
	}
	if err := m.WorktreeThere(ctx, rec); err != nil {
		return "", false, err
	}
	// Two commits of one task at once would race on its index: the second
	// waits, then finds what the first left (often nothing to commit).
	l, err := m.commitLock(ctx, rec)
	if err != nil {
		return "", false, err
	}
	defer l.Release()
	task.Checkpoint(ctx, "commit:locked")
	if err := m.committable(ctx, rec); err != nil {
		return "", false, err
	}
	m.ClearStaleLocks(rec) // a killed git's: git add would refuse to run
	if err := m.Git.Index().StageAll(ctx, rec.Path); err != nil {
		return "", false, m.worktreeGone(ctx, rec, exitcode.Failedf("cannot stage the changes in %s: %v", rec.Path, err))
	}
	staged, err := m.Git.Index().HasStaged(ctx, rec.Path)
	if err != nil {
		return "", false, m.worktreeGone(ctx, rec, err)
	}
	if staged {
		if err := m.gitCommit(ctx, rec, msg, hookOutput); err != nil {
			return "", false, m.worktreeGone(ctx, rec, err)
		}
	}
	sha, err = m.Git.Index().Head(ctx, rec.Path)
	if err == nil && staged {
		m.LogEvent(rec, "committed", sha)
	}
	return sha, staged, err
}

// committable refuses (exit 3, nothing staged) a commit in a worktree
// whose HEAD is on no branch: a task whose creation has registered the
// worktree but not checked it out yet (HEAD detached at the start commit,
// or not yet written), or one the user detached. A commit there would
// reach no branch, and the creation's checkout, or the task's removal,
// would then drop it, and the file it staged with it.
func (m *Flow) committable(ctx context.Context, rec *record.Record) error {
	// Read again under the commit lock: an rm that held it has removed
	// the task, or put it back, meanwhile.
	fresh, err := m.Store.Get(ctx, rec.Slug)
	if err != nil {
		return err
	}
	if len(fresh) == 0 || fresh[0].Record == nil || fresh[0].Record.Path != rec.Path {
		return m.worktreeGone(ctx, rec, exitcode.NotFoundf("task %q was removed meanwhile, so nothing was committed", rec.Task))
	}
	switch fresh[0].Record.State { // the task as it is now: made anew since, maybe
	case record.Removing:
		return exitcode.RefusedAs(exitcode.KindBusy, "task %q is being removed, so nothing was committed", rec.Task)
	case record.Creating:
		return exitcode.RefusedAs(exitcode.KindBusy, "task %q is still being created (its checkout may not be done), so nothing was committed: run git wt new %s (it waits for the creation, or finishes one that was stopped), then commit again", rec.Task, text.ShellQuote(rec.Task))
	}
	if !m.onABranch(rec.Path) {
		return exitcode.Refusedf("%s has no branch checked out (its HEAD is detached), so nothing was committed: a commit there would be on no branch; check out %s there (git -C %s switch %s), then commit again", rec.Path, rec.Branch, text.ShellQuote(rec.Path), text.ShellQuote(rec.Branch))
	}
	return nil
}

// onABranch reports whether the task worktree at dir has a branch checked
// out, from the HEAD file in git's entry for it. One that is not proven
// git's (git.ProveLinked: its .git file, which the agent can write, may
// name any folder) says yes here: the commit's git refuses it, saying why.
func (m *Flow) onABranch(dir string) bool {
	admin, err := git.ProveLinked(m.Repo.CommonDir, dir, dir)
	if err != nil {
		return true
	}
	ref, _, ok := git.ReadHead(admin) // not ok: cut short by a killed git
	return ok && ref != ""
}
