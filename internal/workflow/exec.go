package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Exec runs argv in the task's worktree with the task's environment by
// replacing git-wt with it (execve), as env(1) and `bundle exec` do: stdin,
// stdout, stderr and the terminal are the command's own, a signal sent to
// git-wt's pid reaches the command, and the exit status is the command's.
// It counts as a use of the task. It returns only when the command could
// not be started: exit 127 when there is no such command, 126 when it
// cannot be run. On Windows the command runs as git-wt's child and this
// returns its end (child.Cmd.Exec): nil, or its exit status.
//
// The command gets git-wt's environment without the variables that would
// point git elsewhere (GIT_DIR, GIT_WORK_TREE, ...): its git commands act
// on the task's worktree.
func (m *Flow) Exec(rec *record.Record, argv []string) error {
	if err := m.WorktreeThere(context.Background(), rec); err != nil {
		return err
	}
	task.Checkpoint(context.Background(), "exec:found")
	// From the chdir on, this process works in the worktree: rm must see
	// it as the user it is, not as another git-wt (proc.UsersOf).
	proc.MarkAsUser()
	if err := os.Chdir(rec.Path); err != nil {
		return m.worktreeGone(context.Background(), rec, exitcode.Failedf("cannot enter the worktree %s: %v", rec.Path, fsutil.UnwrapPathErr(err)))
	}
	task.Checkpoint(context.Background(), "exec:entered")
	m.Touch(rec.Slug)
	// Looked up after the chdir: "./run.sh" is the worktree's.
	err := child.Cmd{Path: argv[0], Args: argv[1:], Env: append(m.OwnEnv(rec), "PWD="+rec.Path)}.Exec()
	var exited *exitcode.Exited
	if err == nil || errors.As(err, &exited) {
		return err // it ran (Windows)
	}
	return cannotRun(rec, argv[0], err)
}

// cannotRun is the error of a command that did not start.
func cannotRun(rec *record.Record, name string, err error) error {
	code := exitcode.CannotRun
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		code = exitcode.CommandNotFound
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	return &exitcode.Error{Code: code, Err: fmt.Errorf("cannot run %s in %s: %v", name, rec.Path, fsutil.UnwrapPathErr(err))}
}
