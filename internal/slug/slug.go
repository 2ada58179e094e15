// Package slug turns a task id (any text) into a name that is safe as one
// path element and as one ref component, following SPEC §3.
package slug

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxBytes is the longest slug before a collision suffix.
const MaxBytes = 200

// Empty is the slug of a task id that has nothing usable in it.
const Empty = "_branch"

// Make returns the slug of a task id. The same id always gives the same
// slug, and a slug is its own slug. Slugs are NFC, Unicode's composed
// form: an id typed composed or decomposed (macOS's file names are
// decomposed, and "café" may arrive either way) is one slug, one folder.
func Make(taskID string) string {
	s := replaceUnsafe(norm.NFC.String(taskID))
	s = squeeze(s, '-')
	s = squeeze(s, '.')
	s = trim(s)
	s = cut(s, MaxBytes)
	s = trim(s)
	if s == "" {
		return Empty
	}
	if reserved(s) {
		s = "_" + s
	}
	return s
}

// WithSuffix is the slug a task id gets when its plain slug belongs to
// another task: the slug, "-", and the first 6 hex digits of the SHA-1 of
// the task id.
func WithSuffix(slug, taskID string) string {
	sum := sha1.Sum([]byte(taskID))
	return slug + "-" + hex.EncodeToString(sum[:])[:6]
}

// Candidates are the two slugs a task id may be stored under, in the order
// they are tried.
func Candidates(taskID string) [2]string {
	s := Make(taskID)
	return [2]string{s, WithSuffix(s, taskID)}
}

// SameID reports whether two task ids (or two slugs) are the same text
// in Unicode's composed form: one task however it was typed.
func SameID(a, b string) bool {
	return a == b || norm.NFC.String(a) == norm.NFC.String(b)
}

// Folds reports whether two different slugs name one file where the file
// system ignores case and Unicode form (macOS's APFS by default, Windows,
// ext4 with casefold): they would share a folder and a ref file, so the
// second task takes the suffixed slug.
func Folds(a, b string) bool {
	return a != b && strings.EqualFold(norm.NFC.String(a), norm.NFC.String(b))
}

// replaceUnsafe turns runs of white space into "_" and every other
// character that is not a letter, digit, ".", "_" or "-" into "-".
func replaceUnsafe(id string) string {
	var b strings.Builder
	inSpace := false
	for _, r := range id {
		if unicode.IsSpace(r) {
			if !inSpace {
				b.WriteByte('_')
			}
			inSpace = true
			continue
		}
		inSpace = false
		switch {
		case r == utf8.RuneError:
			b.WriteByte('-') // invalid UTF-8 never reaches a path or a ref
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'),
			r == '.', r == '_', r == '-':
			b.WriteRune(r)
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// squeeze replaces runs of c with one c.
func squeeze(s string, c byte) string {
	double := string([]byte{c, c})
	for strings.Contains(s, double) {
		s = strings.ReplaceAll(s, double, string(c))
	}
	return s
}

// trim strips leading and trailing "-" and "." and any trailing ".lock"
// (git refuses a ref component ending in ".lock"), until none is left.
func trim(s string) string {
	for {
		t := strings.Trim(s, "-.")
		t = strings.TrimSuffix(t, ".lock")
		if t == s {
			return s
		}
		s = t
	}
}

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// reserved reports a name Windows will not create a file under (CON,
// PRN, AUX, NUL, COM1-9, LPT1-9, in any case, also with an extension).
func reserved(s string) bool {
	stem, _, _ := strings.Cut(s, ".")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(stem) == 4 && stem[3] >= '1' && stem[3] <= '9' {
		switch strings.ToUpper(stem[:3]) {
		case "COM", "LPT":
			return true
		}
	}
	return false
}
