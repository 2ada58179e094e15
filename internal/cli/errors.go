package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/text"
)

// errorDoc is what a command run with --json prints on stdout when it
// fails (SPEC §2): the exit code, a kind from a closed list, the message
// stderr shows, and the task and path when the error is about one.
type errorDoc struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    int           `json:"code"`
	Kind    exitcode.Kind `json:"kind"`
	Message string        `json:"message"`
	Task    string        `json:"task,omitempty"`
	Path    string        `json:"path,omitempty"`
}

func errorDocument(ctx context.Context, err error, code int) errorDoc {
	b := errorBody{Code: code, Kind: errorKind(ctx, err), Message: text.OneLine(err.Error())}
	var e *exitcode.Error
	if errors.As(err, &e) {
		b.Task, b.Path = e.Task, e.Path
	}
	var pe *fs.PathError
	if b.Path == "" && errors.As(err, &pe) {
		b.Path = pe.Path
	}
	return errorDoc{Error: b}
}

// errorKind is the kind of err: the one its maker named, else what the
// error is (an interrupt, git failing, a lock that was not free, a full
// disk: ENOSPC, or Windows' disk full), else what its exit code says.
func errorKind(ctx context.Context, err error) exitcode.Kind {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Kind != "" {
		return e.Kind
	}
	var timeout *lock.ErrTimeout
	var gitErr *git.Error
	var pathErr *fs.PathError
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return exitcode.KindInterrupted
	case errors.Is(err, git.ErrNotRepository):
		return exitcode.KindNotARepository
	case errors.As(err, &timeout):
		return exitcode.KindLockTimeout
	case fsutil.NoSpace(err):
		return exitcode.KindNoSpace
	}
	if kind, ok := exitcode.KindOfCode(exitcode.Of(err)); ok {
		return kind
	}
	switch {
	case errors.As(err, &gitErr):
		return exitcode.KindGitFailed
	case errors.As(err, &pathErr), errors.Is(err, os.ErrPermission):
		return exitcode.KindIO
	}
	return exitcode.KindGitFailed
}
