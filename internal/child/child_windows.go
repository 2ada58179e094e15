package child

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// terminateGroup kills p: Windows has neither process groups nor SIGTERM,
// and what p started lives on until a job object ends the tree (SPEC §21,
// not written yet).
func terminateGroup(p *os.Process) error { return p.Kill() }

// KillGroup does nothing on Windows, which has no process groups: what a
// command started lives on until a job object ends the tree (SPEC §21,
// not written yet).
func KillGroup(int) {}

// detachAttr starts a process without git-wt's console and in a process
// group of its own, so that neither the console's closing nor its Ctrl+C
// reaches it.
func detachAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}
