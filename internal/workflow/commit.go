package workflow

import (
	"context"
	"io"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
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
	if _, err := m.Git.RunIn(ctx, rec.Path, "add", "-A"); err != nil {
		return "", false, worktreeGone(rec, exitcode.Failedf("cannot stage the changes in %s: %v", rec.Path, err))
	}
	staged, err := m.hasStaged(ctx, rec.Path)
	if err != nil {
		return "", false, worktreeGone(rec, err)
	}
	if staged {
		if err := m.gitCommit(ctx, rec, msg, hookOutput); err != nil {
			return "", false, worktreeGone(rec, err)
		}
	}
	sha, err = m.head(ctx, rec.Path)
	if err == nil && staged {
		m.LogEvent(rec, "committed", sha)
	}
	return sha, staged, err
}

// hasStaged reports whether the index of the worktree at dir differs from
// its HEAD (plumbing: no diff.* setting changes the answer).
func (m *Flow) hasStaged(ctx context.Context, dir string) (bool, error) {
	_, err := m.Git.RunIn(ctx, dir, "diff-index", "--cached", "--quiet", "HEAD", "--")
	if git.ExitCode(err) == 1 {
		return true, nil
	}
	return false, err
}

// head is the commit the worktree at dir has checked out.
func (m *Flow) head(ctx context.Context, dir string) (string, error) {
	out, err := m.Git.RunIn(ctx, dir, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}
