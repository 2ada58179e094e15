// Package exitcode holds the exit codes of SPEC §2 and the error type that
// carries one. Domain packages return these errors where they know the
// category (a refusal, a missing task); everything else exits 1.
package exitcode

import (
	"errors"
	"fmt"
)

// The exit codes every git-wt command uses.
const (
	OK       = 0 // done
	Failed   = 1 // git failed, I/O error, ...
	Usage    = 2 // unknown flag, missing argument, invalid task id
	Refused  = 3 // refused to protect data; nothing was changed
	Limit    = 4 // wt.maxWorktrees reached; nothing was changed
	NotFound = 5 // no such task

	// `git wt exec` exits with its command's status; when the command
	// cannot be started it exits as the shell and env(1) do.
	CannotRun       = 126 // found but not executable
	CommandNotFound = 127 // no such command
)

// Meanings says what each code means (index: the code), for the man
// page's EXIT STATUS section.
var Meanings = []string{
	OK:       "done",
	Failed:   "failed (git failed, I/O error, not a repository, git too old); the message says what and names the path",
	Usage:    "usage error: unknown command or flag, missing argument, invalid task id, path outside the base dir",
	Refused:  "refused to protect data (dirty, unmerged, locked, in use, main worktree); nothing was changed",
	Limit:    "limit reached (wt.maxWorktrees); nothing was changed",
	NotFound: "not found: no such task (rm exits 0 instead)",
}

// Error is an error with the exit code it should end the process with.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func newf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Usagef reports bad input from the user: exit 2.
func Usagef(format string, args ...any) error { return newf(Usage, format, args...) }

// Refusedf reports a refusal that protects the user's data: exit 3.
func Refusedf(format string, args ...any) error { return newf(Refused, format, args...) }

// Limitf reports a configured limit that was reached: exit 4.
func Limitf(format string, args ...any) error { return newf(Limit, format, args...) }

// NotFoundf reports a task that does not exist: exit 5.
func NotFoundf(format string, args ...any) error { return newf(NotFound, format, args...) }

// Failedf reports a failure: exit 1.
func Failedf(format string, args ...any) error { return newf(Failed, format, args...) }

// Of returns the exit code for err: 0 for nil, the code of the first
// *Error in its chain, and 1 for anything else.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failed
}
