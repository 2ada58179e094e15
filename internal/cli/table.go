package cli

import (
	"io"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/git-wt/git-wt/internal/text"
)

// cell is one table cell: its text and how to colour it.
type cell struct {
	text  string
	paint func(string) string
}

// table lays out rows in columns separated by two spaces. Widths are
// display widths (terminal cells: 日 and 🚀 take two, a combining accent
// none) of the visible text, so that wide characters and colour codes do
// not break the alignment.
type table struct {
	header []string
	rows   [][]cell
	// How the table may give way to fit a terminal: the columns whose
	// text may be cut (by header; true: cut at the start, keeping the
	// end, as for paths), and the columns that may go, first to go first
	// (a name the header lacks is skipped).
	cut  map[string]bool
	drop []string
}

// minCut is the narrowest a cut column gets: enough to tell rows apart.
const minCut = 12

// ellipsis marks cut text; plain ASCII, as any terminal shows it.
const ellipsis = "..."

// add adds a row. Every cell's text passes text.Terminal here, so that a
// task id, branch, path or title from outside never acts on the terminal:
// callers give the text as it is.
func (t *table) add(cells ...cell) {
	for i := range cells {
		cells[i].text = text.Terminal(cells[i].text)
	}
	t.rows = append(t.rows, cells)
}

// widths is the natural width of each column.
func (t *table) widths() []int {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = runewidth.StringWidth(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], runewidth.StringWidth(c.text))
		}
	}
	return widths
}

// fit makes the table at most width columns wide (width 0: no limit):
// it cuts the widest cuttable column, one cell at a time, down to
// minCut; while that is not enough it drops the next optional column and
// tries again. A table that cannot fit is cut as far as it goes.
func (t *table) fit(width int) {
	if width <= 0 {
		return
	}
	for {
		widths := t.widths()
		fits := t.cutTo(widths, width)
		if fits || len(t.drop) == 0 {
			t.apply(widths)
			return
		}
		t.dropColumn(t.drop[0])
		t.drop = t.drop[1:]
	}
}

// cutTo narrows the cuttable columns in widths until the table is at
// most width wide, and reports whether it got there.
func (t *table) cutTo(widths []int, width int) bool {
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for total > width {
		widest := -1
		for i, h := range t.header {
			if _, ok := t.cut[h]; ok && widths[i] > minCut && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return false
		}
		widths[widest]--
		total--
	}
	return true
}

// apply cuts every cell to its column's width.
func (t *table) apply(widths []int) {
	for _, r := range t.rows {
		for i := range r {
			r[i].text = cutText(r[i].text, widths[i], t.cut[t.header[i]])
		}
	}
}

// cutText shortens s to at most width cells with an ellipsis, keeping
// its end if atStart, else its start. A wide character is never split:
// the cut text may be a cell short, which write pads.
func cutText(s string, width int, atStart bool) string {
	if runewidth.StringWidth(s) <= width || width <= len(ellipsis) {
		return s
	}
	if atStart {
		return runewidth.TruncatePrefix(s, width, ellipsis)
	}
	return runewidth.Truncate(s, width, ellipsis)
}

func (t *table) dropColumn(name string) {
	i := slices.Index(t.header, name)
	if i < 0 {
		return
	}
	t.header = slices.Delete(t.header, i, i+1)
	for j, r := range t.rows {
		t.rows[j] = slices.Delete(r, i, i+1)
	}
}

func (t *table) write(w io.Writer, p *painter) error {
	widths := t.widths()
	var b strings.Builder
	line := func(cells []cell) {
		for i, c := range cells {
			text := c.text
			if c.paint != nil {
				text = c.paint(text)
			}
			b.WriteString(text)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-runewidth.StringWidth(c.text)+2))
			}
		}
		b.WriteByte('\n')
	}
	head := make([]cell, len(t.header))
	for i, h := range t.header {
		head[i] = cell{h, p.bold}
	}
	line(head)
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
