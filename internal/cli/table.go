package cli

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cell is one table cell: its text and how to colour it.
type cell struct {
	text  string
	paint func(string) string
}

// table lays out rows in columns separated by two spaces. Widths count
// the visible text, so colour codes do not break the alignment.
type table struct {
	header []string
	rows   [][]cell
}

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, p painter) error {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	var b strings.Builder
	line := func(cells []cell) {
		for i, c := range cells {
			text := c.text
			if c.paint != nil {
				text = c.paint(text)
			}
			b.WriteString(text)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c.text)+2))
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

// printable makes text safe for one table cell: text with control
// characters (a task id may hold a newline) is shown Go-quoted.
func printable(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}
