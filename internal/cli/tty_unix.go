//go:build linux || darwin || freebsd

package cli

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// openTTY opens the terminal for git wt watch: its keys and its screen go
// through /dev/tty, so that stdout stays free for the path Enter prints
// (cd "$(git wt watch)"). ok is false when stdin is no terminal.
func openTTY(stdin any) (*os.File, bool) {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil, false
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios); err != nil {
		return nil, false
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	return tty, true
}

// rawMode puts the terminal in a mode that hands each key over as it is
// pressed, without echo or signals (q and Ctrl-C are read as keys); the
// output is still translated (\n is a new line). restore puts it back.
func rawMode(tty *os.File) (restore func(), err error) {
	fd := int(tty.Fd())
	was, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	raw := *was
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.ICRNL | unix.IXON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(fd, ioctlSetTermios, was) }, nil
}

// ttySize is the terminal's width and height, 80×24 when it does not say.
func ttySize(tty *os.File) (width, height int) {
	if ws, err := unix.IoctlGetWinsize(int(tty.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 && ws.Row > 0 {
		return int(ws.Col), int(ws.Row)
	}
	return 80, 24
}

// ttyColumns is the width of the terminal f is on, 0 when it does not say.
func ttyColumns(f *os.File) int {
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	return 0
}

// notifyResize has c told when the terminal changes size (SIGWINCH).
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }

// isResize says whether s tells that the terminal changed size.
func isResize(s os.Signal) bool { return s == syscall.SIGWINCH }
