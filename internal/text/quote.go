package text

import (
	"strconv"
	"strings"
	"unicode"
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

// QuoteControl returns s as it is when it holds no control character (a
// line break, an escape) and does not start with a double quote, else
// quoted as Go and C quote ("a\nb"): a value printed on a line of its
// own then can never add a line, nor move the terminal's cursor.
func QuoteControl(s string) string {
	if !strings.HasPrefix(s, `"`) && strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}
