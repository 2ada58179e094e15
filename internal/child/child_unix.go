//go:build unix

package child

import (
	"os"
	"syscall"
)

// everyGroupSupervised: a unix Group command leads a process group
// itself; the supervisor is asked for (Cmd.Supervised).
const everyGroupSupervised = false

// terminateGroup sends SIGTERM to the process group p leads.
func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// detachAttr starts a process in a session of its own.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// KillGroup kills what is left of process group pgid with SIGKILL.
func KillGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
