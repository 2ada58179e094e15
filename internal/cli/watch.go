package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// watchPoll is how often watch looks for a change (a few stats, no git),
// and so the most often it redraws for one; agesEvery how often it
// redraws the ages when nothing changed.
const (
	watchPoll = time.Second
	agesEvery = 10 * time.Second
)

func watchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "watch",
		Usage: "the fleet live: every task, its agent, dirty, ahead/behind, ports, last activity",
		Description: "Redraws when a record, a ref or a worktree's index changes (looked for once a second, " +
			"without running git), fitted to the terminal's width. Up and down (or k and j) select a task, " +
			"Enter prints its path on stdout and exits, so that cd \"$(git wt watch)\" goes there; q quits. " +
			"The screen is drawn on the terminal (/dev/tty), so stdout may be a pipe. Without a terminal on " +
			"stdin, or on one it cannot drive (Windows' console, so far), it prints plain lines instead: the fleet, " +
			"then again each time it changes.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			m, err := e.manager(c.Context, "watch")
			if err != nil {
				return err
			}
			w := &watcher{e: e, m: m}
			tty, ok := openTTY(e.stdin)
			if !ok {
				if f, isFile := e.stdin.(*os.File); isFile && isatty.IsTerminal(f.Fd()) {
					// A terminal watch cannot drive (Windows' console, so far).
					e.infof("git wt watch cannot drive this terminal: printing the fleet as plain lines instead")
				}
				return w.plain(c.Context)
			}
			defer tty.Close()
			return w.interactive(c.Context, tty)
		},
	}
}

// watcher is one git wt watch: the fleet as last read, and the selection.
type watcher struct {
	e     *env
	m     *task.Manager
	stamp string
	views []taskView
	sel   string // the selected task's slug: kept across reloads
	top   int    // the first row shown, when they do not all fit
}

// changed reports whether anything watch shows may have changed since the
// last call.
func (w *watcher) changed() bool {
	stamp := git.ChangeStamp(w.m.Repo.CommonDir)
	if stamp == w.stamp {
		return false
	}
	w.stamp = stamp
	return true
}

// load reads every task and its status, as list does.
func (w *watcher) load(ctx context.Context) error {
	o := inspect.LiveOptions{Status: true}
	lives, _, err := w.e.handlers(w.m).inspect.Inspect(ctx, o)
	if err != nil {
		return err
	}
	w.views = w.views[:0]
	for i := range lives {
		if lives[i].Entry.Err == nil {
			w.views = append(w.views, newTaskView(&lives[i], o, w.m.Settings.StaleAfter))
		}
	}
	slices.SortFunc(w.views, func(a, b taskView) int { return strings.Compare(a.Slug, b.Slug) })
	if w.selected() < 0 && len(w.views) > 0 {
		w.sel = w.views[0].Slug
	}
	return nil
}

func (w *watcher) selected() int {
	return slices.IndexFunc(w.views, func(v taskView) bool { return v.Slug == w.sel })
}

// table is the fleet as a table fitted to width (0: no limit).
func (w *watcher) table(width int) *table {
	t := &table{
		header: []string{"TASK", "STATE", "AGENT", "DIRTY", "AHEAD/BEHIND", "PORTS", "ACTIVE"},
		cut:    map[string]bool{"TASK": false, "PORTS": false},
		drop:   []string{"PORTS", "ACTIVE", "AHEAD/BEHIND"},
	}
	now := time.Now()
	for _, v := range w.views {
		ports := "-"
		if env := task.PortEnv(v.Record); len(env) > 0 {
			ports = strings.Join(env[:len(env)-1], " ")
		}
		t.add(
			cell{v.Task, nil},
			w.e.stateCell(v),
			w.e.agentCell(now, v.Agent),
			w.e.dirtyCell(v),
			cell{aheadBehind(v), nil},
			cell{ports, nil},
			cell{age(now, lastActivity(v)), nil},
		)
	}
	t.fit(width)
	return t
}

// lastActivity is when the task was last used or its agent last heard of.
func lastActivity(v taskView) time.Time {
	last := v.LastAccessAt
	if v.Agent != nil && v.Agent.Since.After(last) {
		last = v.Agent.Since
	}
	for _, s := range v.Sessions {
		if s.LastSeen.After(last) {
			last = s.LastSeen
		}
	}
	return last
}

// lines is the table as text lines, the header first.
func (w *watcher) lines(width int) []string {
	var b strings.Builder
	w.table(width).write(&b, w.e.out)
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// plain prints the fleet, then again each time it changes, until stdout
// closes or a signal ends it.
func (w *watcher) plain(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	for first := true; ; first = false {
		if w.changed() {
			if err := w.load(ctx); err != nil {
				return err
			}
			text := strings.Join(w.lines(0), "\n") + "\n"
			if len(w.views) == 0 {
				text = "no task worktrees\n"
			}
			if !first {
				text = "\n" + text
			}
			if _, err := io.WriteString(w.e.stdout, text); err != nil { // terminal: table.add quoted every cell
				return nil // the reader went away
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// The keys watch reads.
const (
	keyUp = iota + 1
	keyDown
	keyEnter
	keyQuit
)

// readKeys turns the terminal's bytes into keys; it ends (keyQuit) when
// the terminal closes.
func readKeys(r io.Reader, keys chan<- int) {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if err != nil {
			keys <- keyQuit
			return
		}
		switch b {
		case 'q', 'Q', 3, 4: // Ctrl-C, Ctrl-D
			keys <- keyQuit
		case '\r', '\n':
			keys <- keyEnter
		case 'k':
			keys <- keyUp
		case 'j':
			keys <- keyDown
		case 0x1b: // ESC [ A / ESC O A: up; B: down
			if next, _ := br.Peek(2); len(next) == 2 && (next[0] == '[' || next[0] == 'O') {
				br.Discard(2)
				switch next[1] {
				case 'A':
					keys <- keyUp
				case 'B':
					keys <- keyDown
				}
			}
		}
	}
}

// interactive draws the fleet on the terminal and follows the keys.
func (w *watcher) interactive(ctx context.Context, tty *os.File) error {
	restore, err := rawMode(tty)
	if err != nil {
		return w.plain(ctx)
	}
	w.e.out = w.e.newPainter(tty)
	fmt.Fprint(tty, "\x1b[?1049h\x1b[?25l") // the alternate screen, no cursor
	defer func() {
		fmt.Fprint(tty, "\x1b[?25h\x1b[?1049l")
		restore()
	}()
	keys := make(chan int, 16)
	go readKeys(tty, keys)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	notifyResize(sigs)
	defer signal.Stop(sigs)
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	var drawn time.Time
	draw := func() {
		w.draw(tty)
		drawn = time.Now()
	}
	w.changed()
	if err := w.load(ctx); err != nil {
		return err
	}
	draw()
	for {
		select {
		case k := <-keys:
			i := w.selected()
			switch {
			case k == keyQuit:
				return nil
			case k == keyEnter && i >= 0:
				path := w.views[i].Path
				fmt.Fprint(tty, "\x1b[?25h\x1b[?1049l")
				restore()
				restore = func() {}
				_, err := fmt.Fprintln(w.e.stdout, path) // terminal: the path, as it is, for cd "$(git wt watch)"
				return err
			case k == keyUp && i > 0:
				w.sel = w.views[i-1].Slug
			case k == keyDown && i >= 0 && i+1 < len(w.views):
				w.sel = w.views[i+1].Slug
			}
			draw()
		case s := <-sigs:
			if !isResize(s) {
				return nil
			}
			draw()
		case <-tick.C:
			if w.changed() {
				if err := w.load(ctx); err != nil {
					return err
				}
				draw()
			} else if time.Since(drawn) >= agesEvery {
				draw()
			}
		}
	}
}

// draw paints the screen: a title, the header, and as many tasks as fit,
// the selected one in reverse video and always in sight.
func (w *watcher) draw(tty *os.File) {
	width, height := ttySize(tty)
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	title := cutText("git wt watch · "+text.Terminal(w.m.Repo.MainDir)+" · ↑↓ select · Enter: print path · q: quit", width, false)
	b.WriteString(w.e.out.bold(title) + "\n")
	if len(w.views) == 0 {
		b.WriteString("no task worktrees (create one with git wt new TASK)\n")
		fmt.Fprint(tty, b.String()) // terminal: the title quoted, the rest watch's own
		return
	}
	lines := w.lines(width - 2) // the selection mark's column
	b.WriteString("  " + lines[0] + "\n")
	rows := lines[1:]
	room := max(height-3, 1)
	i := max(w.selected(), 0)
	w.top = min(max(w.top, i-room+1), i)
	for j := w.top; j < len(rows) && j < w.top+room; j++ {
		mark := "  "
		if j == i {
			mark = w.e.out.bold("> ")
		}
		b.WriteString(mark + rows[j] + "\n")
	}
	fmt.Fprint(tty, strings.TrimSuffix(b.String(), "\n")) // terminal: the title quoted, table.add quoted every cell
}
