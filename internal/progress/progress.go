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
	mu    sync.Mutex         // one meter line at a time on w
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
	drawn    int // width of the line last drawn; 0: nothing on screen
}

// Start begins a meter titled title ("checking worktrees") counting up to
// total (0 when the total is not known).
func (p *Printer) Start(title string, total int64, unit Unit) *Meter {
	if p == nil {
		return nil
	}
	return &Meter{p: p, title: title, total: total, unit: unit, start: time.Now()}
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
	if m.drawn > 0 {
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
	pad := strings.Repeat(" ", max(0, m.drawn-len(line)))
	m.p.mu.Lock()
	fmt.Fprint(m.p.w, "\r"+line+pad+end)
	m.p.mu.Unlock()
	m.drawn, m.lastPct, m.lastDraw = len(line), pct, now
}

func (m *Meter) amount(n int64) string {
	if m.unit == Bytes && m.p.size != nil {
		return m.p.size(n)
	}
	return strconv.FormatInt(n, 10)
}
