// Package text holds the small wording helpers that git-wt's messages share.
package text

// Plural picks the word for a count: Plural(1, "change", "changes").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
