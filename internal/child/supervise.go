//go:build unix

package child

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// Supervise is git-wt run as a supervisor: the leader of a new process
// group (git-wt started it so: Cmd.Supervised), it runs the command as its
// child in that group and waits for it. When its git-wt dies, however it
// dies, it kills the whole group with SIGKILL, itself included: the
// command and everything it started that stayed in the group. Otherwise
// it ends as the command ended: the same exit status, or killed by the
// same signal (SIGKILL, SIGTERM, SIGINT, SIGHUP; any other signal comes
// back as exit status 128+n, as a shell reports it). The command's
// environment, directory, input and output are the supervisor's own,
// which git-wt set up as the command's. It returns the exit code.
func Supervise(args []string) int {
	if len(args) < 3 || syscall.Getpgrp() != os.Getpid() {
		// Run by hand, it would kill a group that is not its own.
		fmt.Fprintf(os.Stderr, "git-wt: %s PARENT PATH ARGV0 [ARGS...] is for git-wt's own use, as the leader of a process group\n", SuperviseCommand)
		return exitcode.Usage
	}
	parent, ok := parentArg(args[0])
	if !ok {
		return exitcode.Usage
	}
	// A signal sent to the whole group (an interrupt's SIGTERM) is the
	// command's to act on: the supervisor outlives it, and ends as the
	// command ends.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	died := watchParent(parent)
	if os.Getppid() != parent {
		return endGroup() // git-wt died before the watch began
	}
	cmd, exited := startCommand(args[1], args[2:])
	if cmd == nil {
		return 127
	}
	select {
	case <-exited:
		return passOn(cmd.ProcessState)
	case <-died:
		return endGroup()
	}
}

// endGroup kills the supervisor's process group, the supervisor included.
func endGroup() int {
	syscall.Kill(0, syscall.SIGKILL)
	return 128 + int(syscall.SIGKILL)
}

// passOn is the exit code of a supervisor whose command ended as st says;
// for a command killed by a signal, the supervisor kills itself with it
// first where it can (dieOf).
func passOn(st *os.ProcessState) int {
	if st == nil {
		return 127 // not waited for: cannot happen to a started command
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return st.ExitCode()
	}
	dieOf(ws.Signal())
	return 128 + int(ws.Signal())
}

// dieOf ends this process by sig, for the signals a Go program can die
// of: SIGKILL, and SIGHUP, SIGINT and SIGTERM once no longer caught (the
// Go runtime turns the others into a stack dump or ignores them). It
// returns when sig is not one of them, or has not ended the process
// within a second (the caller then exits with 128+sig).
func dieOf(sig syscall.Signal) {
	switch sig {
	case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM:
		signal.Reset(sig)
	case syscall.SIGKILL:
	default:
		return
	}
	syscall.Kill(os.Getpid(), sig)
	// The signal may be taken by another thread: give it the time.
	time.Sleep(time.Second)
}
