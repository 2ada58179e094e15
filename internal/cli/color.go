package cli

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"

	"github.com/git-wt/git-wt/internal/settings"
)

// painter colours text for one stream. fatih/color decides from stdout
// alone; git-wt's messages go to stderr, so each stream decides for itself.
// The decision is made when something is first painted, so that the
// global flags and, if loaded by then, the settings are known.
type painter struct {
	once   sync.Once
	on     bool
	decide func() bool
}

func (p *painter) paint(attr color.Attribute, s string) string {
	p.once.Do(func() { p.on = p.decide() })
	if !p.on {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

func (p *painter) red(s string) string    { return p.paint(color.FgRed, s) }
func (p *painter) yellow(s string) string { return p.paint(color.FgYellow, s) }
func (p *painter) green(s string) string  { return p.paint(color.FgGreen, s) }
func (p *painter) cyan(s string) string   { return p.paint(color.FgCyan, s) }
func (p *painter) bold(s string) string   { return p.paint(color.Bold, s) }
func (p *painter) faint(s string) string  { return p.paint(color.Faint, s) }

// newPainter returns the painter for w, one of e's streams.
func (e *env) newPainter(w io.Writer) *painter {
	return &painter{decide: func() bool { return e.wantColor(w) }}
}

// wantColor decides colour for w as git does for its own commands: never
// with --no-color or NO_COLOR; else as git's color.wt (or, unset,
// color.ui) says: "always", "never"/"false", or "auto"/"true"/unset,
// which means on a terminal that is not "dumb". Never where w cannot show
// it (showsColor: a Windows console without virtual-terminal sequences).
func (e *env) wantColor(w io.Writer) bool {
	if e.noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	switch strings.ToLower(e.colorSetting()) {
	case "never", "false", "no", "off", "0":
		return false
	case "always":
		return showsColor(w)
	}
	return e.isTerminal(w) && os.Getenv("TERM") != "dumb" && showsColor(w)
}

// colorSetting is color.wt, else color.ui, from the settings if a command
// loaded them, else from one `git config` call.
func (e *env) colorSetting() string {
	if e.settings != nil {
		for _, key := range []string{"color.wt", "color.ui"} {
			if v, ok := e.settings.Get(key); ok {
				return v.Value
			}
		}
		return ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	// Exit 1 (nothing set) and "not a repository" leave the default.
	values := e.git.Config().ColorSettings(context.Background(), cwd)
	if v, ok := values["color.wt"]; ok {
		return v
	}
	return values["color.ui"]
}

// isTerminal reports whether w is a terminal. Stdout also counts as one
// when git runs git-wt behind its pager (`git -p wt list`), as git's own
// colour and width decisions do.
func (e *env) isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return true
	}
	pager, _ := settings.ParseBool(os.Getenv("GIT_PAGER_IN_USE"))
	return w == e.stdout && pager
}

// termWidth is the width of the terminal stdout is on, or 0 when stdout
// is not a terminal. COLUMNS answers when the terminal does not say (git
// sets it for the commands it runs behind its pager); else 80.
func (e *env) termWidth() int {
	if !e.isTerminal(e.stdout) {
		return 0
	}
	if f, ok := e.stdout.(*os.File); ok {
		if n := ttyColumns(f); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
