//go:build darwin || freebsd

package child

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// groupAttr starts the leader of a new process group. These systems have
// no parent-death signal: a supervised command's supervisor watches its
// parent with kqueue instead.
func groupAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// selfExe: no name for the own program; os.Executable finds it.
const selfExe = ""

// watchParent returns a channel closed when process parent has died:
// kqueue's NOTE_EXIT on it, or, where kqueue fails, a poll.
func watchParent(parent int) <-chan struct{} {
	kq, err := unix.Kqueue()
	if err != nil {
		return pollParent(parent)
	}
	var ev unix.Kevent_t
	unix.SetKevent(&ev, parent, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	died := make(chan struct{})
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		unix.Close(kq)
		if errors.Is(err, unix.ESRCH) {
			close(died) // gone already
			return died
		}
		return pollParent(parent)
	}
	go func() {
		defer close(died)
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			switch {
			case errors.Is(err, unix.EINTR), err == nil && n == 0:
			case err != nil:
				waitPoll(parent)
				return
			default:
				return
			}
		}
	}()
	return died
}
