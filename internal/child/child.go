// Package child starts the processes git-wt runs that are not git: the
// init commands, the hooks git-wt runs itself, gh, and git wt exec's
// command. They share one environment policy and one output policy:
//
//   - Environment: git-wt's own, less the variables that would point git
//     at another repository (a hook inherits GIT_DIR and GIT_INDEX_FILE
//     from git; git.ScrubbedEnv), plus what the caller sets, each
//     replacing a variable of the same name (a C program's getenv reads
//     the first of duplicates).
//   - Output: stdout and stderr go where the caller says (the init log,
//     the terminal, nowhere); a command that fails is reported with the
//     last line it wrote on stderr, not its whole output.
package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/git"
)

// Cmd is one child process to run.
type Cmd struct {
	Path string   // the program; looked up in PATH when it has no slash
	Args []string // its arguments, after the program
	Dir  string
	Env  []string // KEY=VALUE set on top of the policy's environment
	// Stdout and Stderr receive the output; nil discards it.
	Stdout, Stderr io.Writer
	// Stdin is what a detached command reads (Detach); nil is nothing.
	Stdin *os.File
	// Group: the command gets its own process group, which is sent
	// SIGTERM when ctx ends (and SIGKILL after GraceDelay), and it is
	// killed when git-wt dies, even by SIGKILL (Linux: the parent-death
	// signal; the caller must start it on a locked OS thread, see
	// exec.Cmd and PR_SET_PDEATHSIG). Windows has no process groups: there
	// every Group command is Supervised, its group the supervisor's job
	// object, and a cancel kills it at once (there is no SIGTERM).
	Group bool
	// Supervised (with Group): the group is led by git-wt's supervisor
	// (Supervise), which runs the command as its child and ends the whole
	// group, the command's own children included, when git-wt dies,
	// however it dies. The command's output, environment, directory and
	// exit status are what they would be without it.
	Supervised bool
	GraceDelay time.Duration
}

// Env is the environment of a child: this process's, less the variables
// that point git elsewhere, with set (KEY=VALUE) replacing any of the same
// name.
func Env(set ...string) []string {
	env := git.ScrubbedEnv(os.Environ())
	names := make(map[string]bool, len(set))
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// Command is c as an exec.Cmd, not started, for a caller that must start
// it itself (on a locked OS thread, for the parent-death signal).
func (c Cmd) Command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, Env(c.Env...)
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	if c.Group {
		// The program is looked up here (cmd.Err) as without the
		// supervisor, so that a missing one fails the same way, on Start.
		supervised := (c.Supervised || everyGroupSupervised) && cmd.Err == nil && supervise(cmd)
		cmd.SysProcAttr = groupAttr(supervised)
		cmd.Cancel = func() error { return terminateGroup(cmd.Process) }
		cmd.WaitDelay = c.GraceDelay
	}
	return cmd
}

// Error is a child that did not succeed: its exit status (-1 when it did
// not exit normally) and the last line it wrote on stderr.
type Error struct {
	Name     string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s failed (%v)", e.Name, e.Err)
	}
	return fmt.Sprintf("%s failed (%v): %s", e.Name, e.Err, e.Stderr)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs c to its end. A failure is an *Error.
func (c Cmd) Run(ctx context.Context) error {
	cmd := c.Command(ctx)
	var stderr bytes.Buffer
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.Stderr, &stderr)
	} else {
		cmd.Stderr = &stderr
	}
	err := cmd.Run()
	if err == nil {
		return nil
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return &Error{Name: c.name(), ExitCode: code, Stderr: lastLine(stderr.String()), Err: err}
}

// Detach starts c in a session of its own and does not wait for it: it
// outlives git-wt and its terminal (a background job such as the pool's
// fill). Its input and output are where c says; nil is nothing. It
// returns the process id.
func (c Cmd) Detach() (int, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, Env(c.Env...)
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	if c.Stdin != nil {
		cmd.Stdin = c.Stdin
	}
	cmd.SysProcAttr = detachAttr()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid // Release forgets it
	return pid, cmd.Process.Release()
}

// Exec runs c's program in git-wt's place, as env(1) does: the program's
// stdin, stdout, stderr, terminal and exit status are git-wt's own. Where
// the system can (unix), git-wt becomes the program (execve) and this
// returns only when it could not be started; on Windows, which cannot
// replace a process, the program runs as git-wt's child while git-wt
// waits (exec_windows.go), and this returns nil when it exited 0, an
// *exitcode.Exited with its status otherwise.
func (c Cmd) Exec() error {
	if c.Dir != "" {
		if err := os.Chdir(c.Dir); err != nil {
			return err
		}
	}
	path, err := exec.LookPath(c.Path)
	if errors.Is(err, exec.ErrDot) {
		err = nil // found through "." in PATH: the shell would run it too
	}
	if err != nil {
		return err
	}
	return replace(path, append([]string{c.Path}, c.Args...), Env(c.Env...))
}

func (c Cmd) name() string {
	if i := strings.LastIndexByte(c.Path, '/'); i >= 0 {
		return c.Path[i+1:]
	}
	return c.Path
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
