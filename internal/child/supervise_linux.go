package child

import (
	"os"
	"os/signal"
	"syscall"
)

// groupAttr starts the leader of a new process group with a parent-death
// signal (PR_SET_PDEATHSIG): SIGKILL for a command that leads its group
// itself; SIGTERM for the supervisor, which catches it and tells it from
// an interrupt's SIGTERM (sent to the whole group) by its parent: the
// kernel gives a dead parent's children to another before it signals
// them.
func groupAttr(supervised bool) *syscall.SysProcAttr {
	sig := syscall.SIGKILL
	if supervised {
		sig = syscall.SIGTERM
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: sig}
}

// selfExe names git-wt's own program: opened by the forked child, it is
// the program git-wt runs even when its file was replaced or deleted
// meanwhile (an upgrade).
const selfExe = "/proc/self/exe"

// watchParent returns a channel closed when process parent, this
// process's parent, has died: the parent-death signal (see groupAttr).
func watchParent(parent int) <-chan struct{} {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	died := make(chan struct{})
	go func() {
		for range sigs {
			if os.Getppid() != parent {
				close(died)
				return
			}
		}
	}()
	return died
}
