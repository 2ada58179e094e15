package cli

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// showsColor reports whether w shows colour sequences. Anything but a
// Windows console does (a file, a pipe, Git Bash's mintty, whose streams
// are pipes); a console does once its virtual-terminal processing is on,
// which this turns on (Windows Terminal has it on already); an older
// console that refuses it would print the sequences as text, so it gets
// none, even with color.wt=always: the stream is that console, not a
// pager. Asked once per stream, when colour is first painted, so that
// the commands that paint none (path, the hot one) make no console call.
func showsColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return true
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return true // not a console
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
