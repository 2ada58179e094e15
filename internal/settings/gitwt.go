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
	return kvs, hex.EncodeToString(sum[:]), nil
}

// ParseGitwt parses git-config syntax into "section.key" (or
// "section.subsection.key") values in file order. go-ini finds the
// sections and keys; values are then unquoted the way git does.
func ParseGitwt(data []byte) ([]keyValue, error) {
	f, err := ini.LoadSources(ini.LoadOptions{
		AllowShadows:            true,
		AllowBooleanKeys:        true,
		IgnoreInlineComment:     true, // git's comment rules differ; unquote handles them
		PreserveSurroundedQuote: true,
	}, data)
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
			for _, raw := range k.ValueWithShadows() {
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
		if !quoted && (c == ' ' || c == '\t') {
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
