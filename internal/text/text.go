// Package text holds the small wording helpers that git-wt's messages share.
package text

import (
	"fmt"
	"strings"
)

// Plural picks the word for a count: Plural(1, "change", "changes").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ListSome names the first n items and counts the rest: "a, b and 3 more".
func ListSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// ShortID is a commit id cut to 12 characters for a message.
func ShortID(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}
