package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// lineProgress shows a long step's progress on a terminal: one line,
// redrawn in place.
type lineProgress struct {
	w    io.Writer
	open bool
}

func (p *lineProgress) Update(format string, args ...any) {
	fmt.Fprintf(p.w, "\rgit-wt: %s\x1b[K", fmt.Sprintf(format, args...))
	p.open = true
}

func (p *lineProgress) Done() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
