package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShellQuote returns s as one word for a POSIX shell: as it is when it
// holds only characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin quotes each word and joins them with spaces: a command line
// that `eval` splits back into exactly these words.
func ShellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = ShellQuote(w)
	}
	return strings.Join(quoted, " ")
}

func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./-_", r)
}

// Terminal is the one way a text from outside (a task id, a branch
// name, a path, a lock reason, a PR title, another program's message)
// reaches a terminal as a value: as it is when it holds nothing a
// terminal would act on or hide (see actsOnTerminal) and does not start
// with a double quote, else quoted as Go quotes it ("a\x1b[2Jb"), every
// such rune escaped. So a value can neither move the cursor, recolour or
// retitle the terminal, nor reorder what is shown around it; and the
// leading quote keeps the quoted form from being mistaken for a value.
func Terminal(s string) string {
	if !strings.HasPrefix(s, `"`) && !strings.ContainsFunc(s, actsOnTerminal) && utf8.ValidString(s) {
		return s
	}
	return strconv.Quote(s)
}

// TerminalLine makes a message line safe for a terminal the way Terminal
// makes a value safe, escaping each such rune (and each byte that is not
// UTF-8) in place, as Go would in a quoted string, and leaving the
// message's own words, quotes included, as they are: a message is read,
// not parsed, so a quoted whole would only make it harder to read.
func TerminalLine(s string) string {
	if !strings.ContainsFunc(s, actsOnTerminal) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case actsOnTerminal(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// actsOnTerminal reports whether a terminal would act on r rather than
// show it, or would show nothing for it: the C0 and C1 controls and DEL
// (escape sequences, line breaks; U+009B is a CSI on its own), the
// bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
// U+061C), which reorder the text around them, the line and paragraph
// separators, and the invisible format characters (U+200B, U+2060–U+2064,
// U+206A–U+206F, U+FEFF, U+FFF9–U+FFFB), which hide a difference between
// two names. The joiners (U+200C, U+200D) and the tag characters stay:
// scripts and emoji need them, and they move nothing.
func actsOnTerminal(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp, invisible)
}

var invisible = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x200b, Hi: 0x200b, Stride: 1},
	{Lo: 0x2060, Hi: 0x2064, Stride: 1},
	{Lo: 0x206a, Hi: 0x206f, Stride: 1},
	{Lo: 0xfeff, Hi: 0xfeff, Stride: 1},
	{Lo: 0xfff9, Hi: 0xfffb, Stride: 1},
}}
