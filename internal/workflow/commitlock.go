package workflow

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// commitLock serialises `git wt commit` on one task with its sync and its
// removal (task.LockCommits). Other tasks' commits do not wait.
func (m *Flow) commitLock(ctx context.Context, rec *record.Record) (*lock.Lock, error) {
	l, err := m.LockCommits(ctx, rec.Slug)
	if err != nil {
		return nil, exitcode.Failedf("cannot commit in %s: %v", rec.Path, err)
	}
	return l, nil
}

// gitCommit runs `git commit` in the task's worktree. Its stderr (the
// user's commit hooks speak there) is shown on hookOutput once git has
// ended, except git's own advice about a lock another git holds, which
// becomes the one line of the error.
//
// A lock file on the branch that a killed git left would fail every
// commit of the task until a doctor --fix: it is judged as doctor judges
// it, deleted, and the commit runs again (PastStaleRefLocks). A commit
// that failed on a lock changed no ref, so running it again is safe.
func (m *Flow) gitCommit(ctx context.Context, rec *record.Record, msg string, hookOutput io.Writer) error {
	var stderr bytes.Buffer
	err := m.PastStaleRefLocks(func() error { return m.commitWaitingForLocks(ctx, rec, msg, &stderr) })
	// What git and the hooks said is shown, except when the worktree went
	// away meanwhile (a concurrent rm: its admin entry goes before its
	// folder): then git's complaints, and a hook's git that found no
	// repository after a commit that landed, say nothing that
	// worktreeGone's message does not.
	if hookOutput != nil && !git.IsLockError(err) && registered(rec) {
		hookOutput.Write(stderr.Bytes())
	}
	if err != nil {
		return exitcode.Failedf("cannot commit in %s: %v", rec.Path, err)
	}
	return nil
}

// commitWaitingForLocks runs git commit, again while it fails on a lock
// another git holds, up to about half a second; stderr holds what the
// last one said. Retried here, not by Exec, so that only the last
// attempt's output is shown.
func (m *Flow) commitWaitingForLocks(ctx context.Context, rec *record.Record, msg string, stderr *bytes.Buffer) error {
	for attempt, delay := 0, 20*time.Millisecond; ; attempt, delay = attempt+1, delay*2 {
		stderr.Reset()
		err := m.Git.Index().CommitShowing(ctx, rec.Path, msg, stderr)
		if !git.IsLockError(err) || attempt >= 5 || ctx.Err() != nil {
			return err
		}
		time.Sleep(delay)
	}
}

// worktreeGone is the error of a git step in the task's worktree: the
// worktree's own "missing" error when it went away meanwhile (a
// concurrent rm), else err.
func (m *Flow) worktreeGone(ctx context.Context, rec *record.Record, err error) error {
	if gone := m.WorktreeThere(ctx, rec); gone != nil {
		return gone
	}
	return err
}

// registered reports whether the task's worktree is still there for git:
// its folder, and the admin entry its .git file names.
func registered(rec *record.Record) bool {
	if task.RequireWorktree(rec) != nil {
		return false
	}
	_, admin, err := git.AdminDir(rec.Path)
	if err != nil {
		return false
	}
	_, err = os.Stat(admin)
	return err == nil
}
