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
	Limit    = 4 // wt.maxWorktrees reached, or the task claimed by another machine; nothing was changed
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
	Limit:    "limit reached (wt.maxWorktrees), or the task is claimed by another machine (wt.claimRemote); nothing was changed",
	NotFound: "not found: no such task (rm exits 0 instead)",
}

// Kind names what went wrong, for the error document a command prints
// with --json (SPEC §2, §14): a closed list, extended only with a line in
// the man page's ERRORS section.
type Kind string

// The error kinds.
const (
	KindUsage          Kind = "usage"
	KindNotFound       Kind = "not_found"
	KindDirty          Kind = "dirty"
	KindUnmerged       Kind = "unmerged"
	KindLocked         Kind = "locked"
	KindInUse          Kind = "in_use"
	KindMainWorktree   Kind = "main_worktree"
	KindBusy           Kind = "busy" // a task in the middle of an operation
	KindLimit          Kind = "limit"
	KindConflict       Kind = "conflict"
	KindLockTimeout    Kind = "lock_timeout"
	KindNoSpace        Kind = "no_space"
	KindNotARepository Kind = "not_a_repository"
	KindUntrusted      Kind = "untrusted"
	KindGitFailed      Kind = "git_failed"
	KindIO             Kind = "io"
	KindInterrupted    Kind = "interrupted"
	KindClaimed        Kind = "claimed" // another machine holds the task (SPEC §18)
	KindUnsafeInput    Kind = "unsafe_input"
)

// Kinds are the error kinds with what each means, for the man page.
var Kinds = []struct {
	Kind    Kind
	Meaning string
}{
	{KindUsage, "bad input: unknown flag, missing argument, invalid task id or setting (exit 2)"},
	{KindNotFound, "no such task (exit 5)"},
	{KindDirty, "the worktree has uncommitted changes, or its status cannot be read (exit 3)"},
	{KindUnmerged, "commits would be lost (exit 3)"},
	{KindLocked, "the task is locked: git wt unlock (exit 3)"},
	{KindInUse, "a process works in the worktree, or another worktree lies in it (exit 3)"},
	{KindMainWorktree, "the main worktree, which git-wt never removes (exit 3)"},
	{KindBusy, "another process is creating, merging or removing the task, or its setup failed (exit 3)"},
	{KindLimit, "wt.maxWorktrees, or no free port in wt.portRange (exit 4)"},
	{KindConflict, "a branch checked out elsewhere, a path taken, a merge conflict (exit 3)"},
	{KindLockTimeout, "the repository lock was not free within wt.lockTimeout (exit 1)"},
	{KindNoSpace, "not enough disk space (exit 1)"},
	{KindNotARepository, "not in a git repository (exit 1)"},
	{KindUntrusted, "the committed .gitwt's commands are not trusted yet: git wt trust"},
	{KindGitFailed, "git failed (exit 1)"},
	{KindIO, "a file could not be read or written (exit 1)"},
	{KindInterrupted, "interrupted: what the command had started was rolled back (exit 1)"},
	{KindClaimed, "another machine holds the task's claim on wt.claimRemote; the message names it (exit 4; exit 3 when a takeover cannot ask gh whether its pull request is open)"},
	{KindUnsafeInput, "data from outside that git-wt will not act on: a session id not in its runner's id form, a runner's file it cannot edit exactly or that a link leads out of the repository, a config in the git dir that git would read on its behalf (exit 3)"},
}

// Error is an error with the exit code it should end the process with,
// and, where the code that made it knows them, its kind and the task and
// path it is about.
type Error struct {
	Code int
	Err  error
	Kind Kind
	Task string
	Path string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func newf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Usagef reports bad input from the user: exit 2.
func Usagef(format string, args ...any) error { return newf(Usage, format, args...) }

// Refusedf reports a refusal that protects the user's data: exit 3, of
// kind busy unless RefusedAs names another.
func Refusedf(format string, args ...any) error { return newf(Refused, format, args...) }

// RefusedAs reports a refusal of a known kind: exit 3.
func RefusedAs(kind Kind, format string, args ...any) error {
	return &Error{Code: Refused, Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Limitf reports a configured limit that was reached: exit 4.
func Limitf(format string, args ...any) error { return newf(Limit, format, args...) }

// NotFoundf reports a task that does not exist: exit 5.
func NotFoundf(format string, args ...any) error { return newf(NotFound, format, args...) }

// Failedf reports a failure: exit 1.
func Failedf(format string, args ...any) error { return newf(Failed, format, args...) }

// Exited is the exit status of a program git-wt ran in its own place
// (exec, mcp) where the system cannot replace a process (Windows): git-wt
// ends with the same status and adds nothing, the program having said
// what it had to.
type Exited struct{ Code int }

func (e *Exited) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Of returns the exit code for err: 0 for nil, the code of the first
// *Error or *Exited in its chain, and 1 for anything else.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var exited *Exited
	if errors.As(err, &exited) {
		return exited.Code
	}
	return Failed
}

// KindOfCode is the kind an exit code says by itself, when nothing more is
// known of the error: ok is false for a failure (exit 1), whose kind only
// the error itself tells.
func KindOfCode(code int) (kind Kind, ok bool) {
	switch code {
	case Usage:
		return KindUsage, true
	case Refused:
		return KindBusy, true
	case Limit:
		return KindLimit, true
	case NotFound:
		return KindNotFound, true
	}
	return KindGitFailed, false
}
