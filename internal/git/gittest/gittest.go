// Package gittest is a fake git for tests: a test lists, in order, the
// exact argv it expects git-wt to run and what each call returns, and the
// fake fails the test on a call it did not expect and, at the end, on one
// that never came. Argv builders and output parsers are then tested in
// tables, without a git binary or a repository.
package gittest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
)

// Fake answers the git commands of the runner Git returns.
type Fake struct {
	t testing.TB

	mu    sync.Mutex
	calls []*Call
	next  int
}

// Call is one expected git command and its canned answer.
type Call struct {
	args   []string
	stdout string
	code   int // 0: success
	stderr string

	// Got is the command as git-wt ran it (its Dir, Env, InWorktree...),
	// once it did.
	Got *git.Cmd
}

// New returns a fake that checks, when t ends, that every expected call
// was made.
func New(t testing.TB) *Fake {
	f := &Fake{t: t}
	t.Cleanup(f.CheckForMissingCalls)
	return f
}

// Git is a runner whose commands the fake answers.
func (f *Fake) Git() *git.Runner {
	return &git.Runner{Fake: f.exec}
}

// Expect adds the next call: git with exactly args (after "git"). It
// succeeds with no output unless told otherwise.
func (f *Fake) Expect(args ...string) *Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &Call{args: args}
	f.calls = append(f.calls, c)
	return c
}

// Out makes the call print stdout and succeed.
func (c *Call) Out(stdout string) *Call {
	c.stdout = stdout
	return c
}

// Fail makes the call exit with code, having printed stderr.
func (c *Call) Fail(code int, stderr string) *Call {
	c.code, c.stderr = code, stderr
	return c
}

// CheckForMissingCalls fails the test if an expected call was not made.
// New arranges for it to run when the test ends.
func (f *Fake) CheckForMissingCalls() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls[f.next:] {
		f.t.Errorf("gittest: expected call never made: git %s", quote(c.args))
	}
}

func (f *Fake) exec(_ context.Context, cmd git.Cmd) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.next >= len(f.calls) {
		f.t.Errorf("gittest: unexpected call: git %s", quote(cmd.Args))
		return nil, &git.Error{Args: cmd.Args, Dir: cmd.Dir, Code: 128, Stderr: "fatal: gittest: unexpected call"}
	}
	c := f.calls[f.next]
	if !slices.Equal(c.args, cmd.Args) {
		f.t.Errorf("gittest: call %d:\n got git %s\nwant git %s", f.next+1, quote(cmd.Args), quote(c.args))
		return nil, &git.Error{Args: cmd.Args, Dir: cmd.Dir, Code: 128, Stderr: "fatal: gittest: wrong call"}
	}
	f.next++
	got := cmd
	c.Got = &got
	if c.code != 0 {
		return []byte(c.stdout), &git.Error{Args: cmd.Args, Dir: cmd.Dir, Code: c.code, Stderr: c.stderr,
			Err: fmt.Errorf("exit status %d", c.code)}
	}
	return []byte(c.stdout), nil
}

// quote shows argv so that spaces and NULs inside an argument are seen.
func quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\x00\"'\\") {
			a = fmt.Sprintf("%q", a)
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
