// Package progress shows how far a long operation has got, the way git
// does: one line on stderr that redraws in place
// ("git-wt: copying node_modules:  40% (1.2G/3.0G)"), only on a terminal,
// only once the operation has run for a moment, ending with ", done.".
//
// Commands get a *Printer from the cli package (nil when stderr is not a
// terminal or --quiet was given), which hands it to the domain behind the
// task.Progress interface; a nil Printer and a nil Meter do nothing. The
// package knows no settings: the cli passes what it needs (how sizes
// print) as plain values.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultDelay is how long an operation runs before its meter shows, as in
// git (whose GIT_PROGRESS_DELAY, in seconds, changes it here too).
const DefaultDelay = 2 * time.Second

// redraw is the least time between two draws of a meter whose percentage
// did not change.
const redraw = 100 * time.Millisecond

// tick is how often a showing meter is drawn again without news, as git's
// does: a step that takes long (an init command) still shows its meter
// once the delay has passed, and a line that other output wiped comes
// back.
const tick = time.Second

// Unit says how a meter prints its counts.
type Unit int

const (
	Count Unit = iota // 40/100
	Bytes             // 1.2G/3.0G
)

// Printer starts meters on one terminal stream.
type Printer struct {
	w     io.Writer
	delay time.Duration
	size  func(int64) string // how a Bytes count prints
	mu    sync.Mutex         // one meter line at a time on w; guards active and each meter's drawn
	// active is the meter whose line is on screen, which other output
	// (Output) clears first.
	active *Meter
}

// NewPrinter returns a Printer drawing on w, or nil (meters that print
// nothing) unless enabled; size prints the counts of Bytes meters ("1.2G").
// The delay before a meter shows is GIT_PROGRESS_DELAY seconds if set,
// else DefaultDelay.
func NewPrinter(w io.Writer, enabled bool, size func(int64) string) *Printer {
	if !enabled {
		return nil
	}
	delay := DefaultDelay
	if s, err := strconv.Atoi(os.Getenv("GIT_PROGRESS_DELAY")); err == nil && s >= 0 {
		delay = time.Duration(s) * time.Second
	}
	return &Printer{w: w, delay: delay, size: size}
}

// Meter is one operation's progress. Its methods may be called from many
// goroutines at once.
type Meter struct {
	p        *Printer
	title    string
	unit     Unit
	start    time.Time
	mu       sync.Mutex
	n, total int64
	lastDraw time.Time
	lastPct  int64
	shown    bool        // the meter has been drawn: Done draws its last line
	ended    bool        // Done was called
	timer    *time.Timer // the draw at the delay, then every tick
	drawn    int         // width of the line on screen (0: none); guarded by p.mu
}

// Start begins a meter titled title ("checking worktrees") counting up to
// total (0 when the total is not known).
func (p *Printer) Start(title string, total int64, unit Unit) *Meter {
	if p == nil {
		return nil
	}
	m := &Meter{p: p, title: title, total: total, unit: unit, start: time.Now()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.delay == 0 {
		m.draw(false) // at once, and so in a known order
		m.timer = time.AfterFunc(tick, m.onTimer)
	} else {
		m.timer = time.AfterFunc(p.delay, m.onTimer)
	}
	return m
}

// onTimer draws the meter when nothing else did for a while, then again
// a tick later, until Done.
func (m *Meter) onTimer() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended {
		return
	}
	if time.Since(m.lastDraw) >= tick-redraw {
		m.draw(false)
	}
	m.timer.Reset(tick)
}

// Add counts n more done.
func (m *Meter) Add(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n += n
	m.draw(false)
}

// Done ends the meter: if it was showing, its line is drawn a last time
// with ", done." and a newline.
func (m *Meter) Done() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ended = true
	m.timer.Stop()
	if m.shown {
		m.draw(true)
	}
}

// draw redraws the line once the delay has passed: at once when the
// percentage changed, else at most every redraw interval.
func (m *Meter) draw(final bool) {
	now := time.Now()
	pct := int64(-1)
	if m.total > 0 {
		pct = min(m.n, m.total) * 100 / m.total
	}
	if !final && (now.Sub(m.start) < m.p.delay || pct == m.lastPct && now.Sub(m.lastDraw) < redraw) {
		return
	}
	line := "git-wt: " + m.title + ": " + m.amount(m.n)
	if pct >= 0 {
		line = fmt.Sprintf("git-wt: %s: %3d%% (%s/%s)", m.title, pct, m.amount(m.n), m.amount(m.total))
	}
	end := "\r"
	if final {
		line, end = line+", done.", "\n"
	}
	p := m.p
	p.mu.Lock()
	pad := strings.Repeat(" ", max(0, m.drawn-len(line)))
	fmt.Fprint(p.w, "\r"+line+pad+end)
	m.drawn, p.active = len(line), m
	if final {
		m.drawn, p.active = 0, nil
	}
	p.mu.Unlock()
	m.shown, m.lastPct, m.lastDraw = true, pct, now
}

// Output is a writer for other output to the printer's stream (an init
// command's, on the same terminal): each write first clears the meter's
// line, so that the two never mix on one line, and the meter is drawn
// again below at its next tick.
func (p *Printer) Output() io.Writer { return clearing{p} }

type clearing struct{ p *Printer }

func (c clearing) Write(b []byte) (int, error) {
	p := c.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if a := p.active; a != nil && a.drawn > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", a.drawn)+"\r")
		a.drawn = 0
	}
	return p.w.Write(b)
}

func (m *Meter) amount(n int64) string {
	if m.unit == Bytes && m.p.size != nil {
		return m.p.size(n)
	}
	return strconv.FormatInt(n, 10)
}
