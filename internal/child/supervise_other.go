//go:build unix && !linux && !darwin && !freebsd

package child

import (
	"syscall"
)

// groupAttr starts the leader of a new process group; these systems have
// no parent-death signal, the supervisor polls its parent.
func groupAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// selfExe: no name for the own program; os.Executable finds it.
const selfExe = ""

// watchParent returns a channel closed when process parent has died.
func watchParent(parent int) <-chan struct{} { return pollParent(parent) }
