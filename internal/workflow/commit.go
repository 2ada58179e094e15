package workflow

import (
	"context"
	"io"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
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
	if err := task.RequireWorktree(rec); err != nil {
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
	m.ClearStaleLocks(rec) // a killed git's: git add would refuse to run
	if err := m.Git.Index().StageAll(ctx, rec.Path); err != nil {
		return "", false, worktreeGone(rec, exitcode.Failedf("cannot stage the changes in %s: %v", rec.Path, err))
	}
	staged, err := m.Git.Index().HasStaged(ctx, rec.Path)
	if err != nil {
		return "", false, worktreeGone(rec, err)
	}
	if staged {
		if err := m.gitCommit(ctx, rec, msg, hookOutput); err != nil {
			return "", false, worktreeGone(rec, err)
		}
	}
	sha, err = m.Git.Index().Head(ctx, rec.Path)
	if err == nil && staged {
		m.LogEvent(rec, "committed", sha)
	}
	return sha, staged, err
}
