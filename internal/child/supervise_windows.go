package child

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/git-wt/git-wt/internal/exitcode"
	"golang.org/x/sys/windows"
)

// groupAttr starts a command in a process group of its own, out of reach
// of the console's Ctrl+C, as a unix group leader is out of its
// terminal's.
func groupAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// supervise is false: the Windows supervisor (a job object that kills on
// close, SPEC §21) is not written yet, so a supervised command runs as
// git-wt's child alone and what it starts may outlive git-wt.
func supervise(*exec.Cmd) bool { return false }

// Supervise refuses: git-wt on Windows starts no supervisor (supervise).
func Supervise([]string) int {
	fmt.Fprintf(os.Stderr, "git-wt: %s is for git-wt's own use, and not on Windows yet\n", SuperviseCommand)
	return exitcode.Usage
}
