//go:build unix

package lock

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens (or makes) the lock file at path, refusing a link.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o666)
	if errors.Is(err, syscall.ELOOP) {
		return nil, errLink(path)
	}
	return f, err
}

// tryLock takes the flock on f if nobody holds it: ok is false, with no
// error, when another process holds it.
func tryLock(f *os.File) (ok bool, err error) {
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err {
	case nil:
		return true, nil
	case syscall.EWOULDBLOCK:
		return false, nil
	default:
		return false, err
	}
}

// waitLock blocks in flock until it has the lock, retrying when a signal
// interrupts the wait.
func waitLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
