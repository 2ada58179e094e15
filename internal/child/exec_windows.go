package child

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// replace runs the program at path in git-wt's place as far as Windows
// allows, having no execve: as git-wt's child, with git-wt's stdin,
// stdout and stderr handles and the environment env, while git-wt waits;
// nil when it exits 0, else an *exitcode.Exited with its status, which
// git-wt ends with. The child is in git-wt's console process group, so
// the console hands Ctrl+C and Ctrl+Break to both: git-wt must not die of
// them first (the program decides what they mean, and its status is the
// one to report), so it takes them while the program runs. Go's console
// handler ignores the events only for a process that asked to be told of
// them (signal.Ignore leaves Windows' default, which exits).
func replace(path string, argv, env []string) error {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &exitcode.Exited{Code: ee.ExitCode()}
	}
	return err
}
