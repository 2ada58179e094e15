package text

import "strings"

// OneLine joins the non-empty lines of s with "; ", so that a message
// that carries another program's multi-line output (git's advice after a
// fatal error, say) still prints as one "git-wt: " line.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
