package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/go-ini/ini"
)

// readGitwt reads the committed .gitwt defaults file (git-config syntax)
// at path. A missing file is no error. It returns the values in file order
// and the SHA-256 of the content, which `git wt trust` records.
func readGitwt(path string) ([]keyValue, string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	kvs, err := ParseGitwt(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", path, err)
	}
	for i := range kvs {
		kvs[i].Origin = path
	}
	return kvs, hex.EncodeToString(sum[:]), nil
}

// ParseGitwt parses git-config syntax into "section.key" (or
// "section.subsection.key") values in file order. go-ini finds the
// sections and keys; values are then unquoted the way git does.
func ParseGitwt(data []byte) ([]keyValue, error) {
	f, err := ini.LoadSources(ini.LoadOptions{
		AllowShadows:               true,
		AllowDuplicateShadowValues: true, // git keeps a repeated value
		IgnoreInlineComment:        true, // git's comment rules differ; unquote handles them
		PreserveSurroundedQuote:    true,
		IgnoreContinuation:         true, // joinContinuations does it git's way
	}, normalize(data))
	if err != nil {
		return nil, err
	}
	var kvs []keyValue
	for _, sec := range f.Sections() {
		name := sectionName(sec.Name())
		if name == "" {
			continue // keys before any [section]: git refuses those; ignore
		}
		for _, k := range sec.Keys() {
			raws := k.ValueWithShadows()
			if len(raws) == 0 {
				raws = []string{""} // go-ini drops a lone empty value (`key =`)
			}
			for _, raw := range raws {
				_, raw, _ = strings.Cut(raw, rawMark)
				raw, _, _ = strings.Cut(raw, rawMark)
				value, err := unquote(raw)
				if err != nil {
					return nil, fmt.Errorf("key %s.%s: %v", name, k.Name(), err)
				}
				kvs = append(kvs, keyValue{
					key:   name + "." + strings.ToLower(k.Name()),
					Value: Value{Value: value, Scope: ScopeGitwt},
				})
			}
		}
	}
	return kvs, nil
}

// sectionName turns an ini section header into git's key prefix: the
// section lower-cased and a quoted subsection kept as written:
// `wt "X"` → `wt.X`.
func sectionName(header string) string {
	if header == ini.DefaultSection {
		return ""
	}
	sec, sub, ok := strings.Cut(header, " ")
	sec = strings.ToLower(sec)
	if !ok {
		return sec
	}
	sub = strings.TrimSpace(sub)
	sub = strings.TrimSuffix(strings.TrimPrefix(sub, `"`), `"`)
	sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
	return sec + "." + sub
}

// unquote reads a raw value as git's config parser does: white space
// outside quotes is trimmed at the ends and kept (as single spaces per
// character) inside; "..." quotes; \n \t \b \\ \" escapes; # and ; outside
// quotes start a comment.
func unquote(raw string) (string, error) {
	var b strings.Builder
	quoted := false
	spaces := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !quoted && (c == ' ' || c == '\t' || c == '\r') { // git's isspace, less the newline
			if b.Len() > 0 {
				spaces++
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			break
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			i++
			if i == len(raw) {
				return "", errors.New("value ends in a backslash")
			}
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(raw[i])
			default:
				return "", fmt.Errorf("unknown escape \\%c", raw[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", errors.New("unterminated quote")
	}
	return b.String(), nil
}

// normalize rewrites git-config syntax where go-ini reads it otherwise: a
// value line that ends in a backslash is joined with the next line (a
// backslash that is itself escaped, or stands in a comment, does not
// continue the line), and a key with no "=" (git's true) becomes
// "key = true" (go-ini cannot repeat such a key).
func normalize(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		for continues(line) {
			// The backslash becomes "", which, like git's continuation,
			// keeps the spaces before it and changes no quoting; at the
			// end of the file it continues into nothing.
			line = line[:len(line)-1] + `""`
			if i+1 >= len(lines) {
				break
			}
			i++
			line += lines[i]
		}
		if header, rest, ok := splitHeader(line); ok {
			out = append(out, header)
			line = rest // git allows a key after "[section]" on the same line
		}
		switch {
		case bareKey(line):
			line = strings.TrimRight(strings.SplitN(strings.SplitN(line, "#", 2)[0], ";", 2)[0], " \t") + " = " + rawMark + "true" + rawMark
		case keyLine(line):
			// Mark where the raw value starts: go-ini then sees no quote
			// or backquote to interpret, and hands the text back as is.
			eq := strings.IndexByte(line, '=')
			line = line[:eq+1] + rawMark + line[eq+1:] + rawMark
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

// splitHeader splits "[section] key = value" after the header; ok is
// false for any other line, or a header with nothing after it.
func splitHeader(line string) (header, rest string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	quoted := false
	for i := 1; i < len(t); i++ {
		switch c := t[i]; {
		case c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			rest = strings.TrimSpace(t[i+1:])
			if rest == "" || rest[0] == '#' || rest[0] == ';' {
				return "", "", false
			}
			return t[:i+1], rest, true
		}
	}
	return "", "", false
}

// rawMark starts every value normalize hands to go-ini.
const rawMark = "\uE000"

// bareKey reports a line that names a key without "=".
func bareKey(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && !strings.ContainsAny(t[:1], "[#;") && !strings.Contains(t, "=")
}

// keyLine reports a "key = value" line.
func keyLine(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && !strings.ContainsAny(t[:1], "[#;") && strings.Contains(t, "=")
}

// continues reports whether a key = value line ends in an unescaped
// backslash outside quotes' and comments' reach.
func continues(line string) bool {
	eq := strings.IndexByte(line, '=')
	if eq < 0 {
		return false
	}
	quoted := false
	for i := eq + 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\':
			if i == len(line)-1 {
				return true
			}
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return false
		}
	}
	return false
}
