package child

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// terminateGroup kills p, the supervisor of a Group command: Windows has
// no SIGTERM, and the supervisor's end closes its job object, whose
// processes Windows then kills (Supervise).
func terminateGroup(p *os.Process) error { return p.Kill() }

// KillGroup does nothing on Windows, which has no process groups: a
// cancel killed the Group command's supervisor, and with it, by its job
// object, the whole tree.
func KillGroup(int) {}

// detachAttr starts a process without git-wt's console and in a process
// group of its own, so that neither the console's closing nor its Ctrl+C
// reaches it.
func detachAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}
