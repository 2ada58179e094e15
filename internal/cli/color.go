package cli

import (
	"io"
	"os"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// painter colours text for one stream. fatih/color decides from stdout
// alone; git-wt's messages go to stderr, so each stream decides for itself.
type painter struct{ on bool }

// newPainter decides colour for w: never with --no-color or NO_COLOR; as
// git's color.wt/color.ui says ("always", "never", "auto"/"true"); and by
// default only on a terminal that is not "dumb".
func newPainter(w io.Writer, noColor bool, setting string) painter {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return painter{}
	}
	switch strings.ToLower(setting) {
	case "never", "false", "no", "off", "0":
		return painter{}
	case "always":
		return painter{on: true}
	}
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return painter{}
	}
	return painter{on: isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())}
}

func (p painter) paint(attr color.Attribute, s string) string {
	if !p.on {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

func (p painter) red(s string) string    { return p.paint(color.FgRed, s) }
func (p painter) yellow(s string) string { return p.paint(color.FgYellow, s) }
func (p painter) green(s string) string  { return p.paint(color.FgGreen, s) }
func (p painter) cyan(s string) string   { return p.paint(color.FgCyan, s) }
func (p painter) bold(s string) string   { return p.paint(color.Bold, s) }
func (p painter) faint(s string) string  { return p.paint(color.Faint, s) }
