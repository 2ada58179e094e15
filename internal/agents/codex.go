package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// CodexEnvironment is the Codex app's .codex/environments/environment.toml
// (developers.openai.com/codex/app/local-environments, read November 2026;
// no app version is named there):
// [setup] script runs in each worktree the app makes (CODEX_WORKTREE_PATH),
// [cleanup] script before it deletes one. git-wt's line goes first into
// the setup script (the worktree is a task before the user's setup runs)
// and last into the cleanup script. The TOML is edited as text, only
// git-wt's line inserted, so that every other byte stays (SPEC §16).
// A file setup creates starts as the app writes one: version 1, and the
// project's name.
func CodexEnvironment(name string) codexFile { return codexFile{name: name} }

type codexFile struct{ name string }

// codexSteps are the tables and git-wt's line in each, and whether it goes
// at the end of the script.
var codexSteps = []struct {
	table, line string
	last        bool
}{
	{"setup", AdoptCommand, false},
	{"cleanup", CodexRemoveCommand, true},
}

// unreadable is script's tableEnd for a script that is no string.
const unreadable = -2

var (
	tableHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[([A-Za-z0-9_.\- ]+)\][ \t]*(#.*)?$`) })
	scriptKey   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*script[ \t]*=[ \t]*`) })
)

// script finds the value of script = in [table]: where the string's text
// starts and ends, and its quote (three single or double quotes, or
// one); found false when there is no such table (tableEnd -1), no
// script in it (tableEnd where to insert one), or a script that is no
// string git-wt can read (tableEnd unreadable).
func script(src []byte, table string) (start, end int, quote string, tableEnd int, found bool) {
	headers := tableHeader().FindAllSubmatchIndex(src, -1)
	for i, h := range headers {
		if strings.TrimSpace(string(src[h[2]:h[3]])) != table {
			continue
		}
		body, bodyEnd := h[1], len(src)
		if i+1 < len(headers) {
			bodyEnd = headers[i+1][0]
		}
		if nl := bytes.IndexByte(src[body:], '\n'); nl >= 0 && body+nl < bodyEnd {
			body += nl + 1
		} else {
			body = bodyEnd
		}
		k := scriptKey().FindIndex(src[body:bodyEnd])
		if k == nil {
			return 0, 0, "", body, false
		}
		at := body + k[1]
		for _, q := range []string{"'''", `"""`, "'", `"`} {
			if !bytes.HasPrefix(src[at:], []byte(q)) {
				continue
			}
			from := at + len(q)
			if len(q) == 3 && bytes.HasPrefix(src[from:], []byte("\n")) {
				from++ // the newline after the opening quotes is not part of the text
			}
			close := bytes.Index(src[from:], []byte(q))
			if len(q) == 1 {
				close = closingQuote(src[from:], q[0])
			}
			if close < 0 {
				return 0, 0, "", unreadable, false
			}
			return from, from + close, q, body, true
		}
		return 0, 0, "", unreadable, false
	}
	return 0, 0, "", -1, false
}

// closingQuote is the index of the quote that ends a one-line string, or
// -1; a basic string's escaped quotes are skipped.
func closingQuote(s []byte, q byte) int {
	for i := 0; i < len(s) && s[i] != '\n'; i++ {
		if q == '"' && s[i] == '\\' {
			i++
			continue
		}
		if s[i] == q {
			return i
		}
	}
	return -1
}

// insertion is the text git-wt puts into the script value src[start:end]
// quoted by quote, and where: its line first, or last. A multi-line
// string gets a line of its own; a one-line basic string an escaped line
// break; a one-line literal string, which cannot hold one, an &&.
func insertion(src []byte, start, end int, quote, line string, last bool) (text string, at int) {
	switch {
	case len(quote) == 3 && !last:
		return line + "\n", start
	case len(quote) == 3 && end > start && src[end-1] != '\n':
		return "\n" + line, end
	case len(quote) == 3:
		return line + "\n", end
	case quote == `"` && last:
		return `\n` + line, end
	case quote == `"`:
		return line + `\n`, start
	case last:
		return " && " + line, end
	}
	return line + " && ", start
}

// Add inserts git-wt's lines; a new table or key, or a line put into a
// script ("setup.script[]"), is noted in created.
func (f codexFile) Add(content []byte) ([]byte, []string, bool, error) {
	start := content
	if len(bytes.TrimSpace(content)) == 0 {
		start = fmt.Appendf(nil, "version = 1\nname = %s\n", strconv.Quote(f.name))
	}
	out, created, err := add(start)
	if err == nil {
		err = checkEdit(start, out, true)
	}
	if err != nil {
		return nil, nil, false, err
	}
	if bytes.Equal(out, content) {
		return content, nil, false, nil
	}
	return out, created, true, nil
}

// add is Add's edit of the text, not checked yet.
func add(out []byte) ([]byte, []string, error) {
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		// Where a line of git-wt's would go after the last one.
		return nil, nil, errors.New("it does not end with a newline")
	}
	var created []string
	for _, st := range codexSteps {
		start, end, quote, tableEnd, found := script(out, st.table)
		var text string
		var at int
		switch {
		case found && strings.Contains(string(out[start:end]), st.line):
			continue
		case found:
			text, at = insertion(out, start, end, quote, st.line, st.last)
			created = append(created, st.table+".script[]")
		case tableEnd == unreadable:
			return nil, nil, fmt.Errorf("its [%s] script is not a string git-wt can read: add %s to it yourself", st.table, st.line)
		case tableEnd >= 0:
			text, at = scriptBlock(st.line), tableEnd
			created = append(created, st.table+".script")
		default:
			text, at = tableBlock(st.table, st.line), len(out)
			created = append(created, st.table)
		}
		out = append(append(append([]byte{}, out[:at]...), text...), out[at:]...)
	}
	return out, created, nil
}

// checkEdit parses the file before and after git-wt's edit with a TOML
// parser (SPEC §19: the edit is of text, and must be exact): the file
// after must parse, and differ from the file before only in the scripts
// of codexSteps, which hold git-wt's lines once added. A file whose
// tables git-wt's edit misreads (dotted keys, an inline table, a quoted
// table name, a "[setup]" line inside a string) fails here, and is
// refused as it was.
func checkEdit(before, after []byte, added bool) error {
	was, err := parseTOML(before)
	if err != nil {
		return fmt.Errorf("it is not TOML git-wt can read (%v): %w", err, ErrCannotEdit)
	}
	is, err := parseTOML(after)
	var lines []string
	for _, st := range codexSteps {
		lines = append(lines, st.line)
		takeScript(was, st.table)
		if script, _ := takeScript(is, st.table); added && err == nil && !strings.Contains(script, st.line) {
			err = fmt.Errorf("its [%s] script would not hold %s", st.table, st.line)
		}
	}
	if err == nil && !reflect.DeepEqual(was, is) {
		err = errors.New("the edit would change more than the scripts")
	}
	if err != nil {
		return fmt.Errorf("its [setup] or [cleanup] is in a form of TOML git-wt does not write (dotted keys, an inline table, a quoted name), so %v: add %q to their scripts yourself: %w",
			err, lines, ErrCannotEdit)
	}
	return nil
}

// parseTOML reads a TOML document, with go-toml: a parser of the whole
// of TOML, which git-wt's text edit is not, and as strict as Codex's own
// (a table both of dotted keys and of a [header] is an error).
func parseTOML(content []byte) (map[string]any, error) {
	doc := map[string]any{}
	err := toml.Unmarshal(content, &doc)
	return doc, err
}

// takeScript takes the script out of table in doc, and the table when
// nothing else is left in it, and returns it.
func takeScript(doc map[string]any, table string) (string, bool) {
	t, ok := doc[table].(map[string]any)
	if !ok {
		return "", false
	}
	script, ok := t["script"].(string)
	delete(t, "script")
	if len(t) == 0 {
		delete(doc, table)
	}
	return script, ok
}

// scriptBlock is the script key git-wt adds to a table without one, and
// tableBlock the table it adds to a file without it.
func scriptBlock(line string) string       { return "script = '''\n" + line + "\n'''\n" }
func tableBlock(table, line string) string { return "\n[" + table + "]\n" + scriptBlock(line) }

// Remove takes out again the lines Add put in, and the tables or keys it
// made (created, as Add said).
func (codexFile) Remove(content []byte, created []string) ([]byte, bool, error) {
	out := content
	// cut takes text out of out[from:to], its first or last occurrence.
	cut := func(from, to int, text string, last bool) bool {
		i := strings.Index(string(out[from:to]), text)
		if last {
			i = strings.LastIndex(string(out[from:to]), text)
		}
		if i >= 0 {
			out = append(out[:from+i:from+i], out[from+i+len(text):]...)
		}
		return i >= 0
	}
	for _, st := range codexSteps {
		start, end, quote, _, found := script(out, st.table)
		if !found || !addedTo(created, st.table, st.table+".script") {
			continue // a line of the user's, though the same text, stays
		}
		if slices.Contains(created, st.table) && cut(0, len(out), tableBlock(st.table, st.line), false) ||
			slices.Contains(created, st.table+".script") && cut(0, len(out), scriptBlock(st.line), false) {
			continue
		}
		text, _ := insertion(out, start, end, quote, st.line, st.last)
		if !cut(start, end, text, st.last) && len(quote) == 3 {
			cut(start, end, "\n"+st.line, st.last)
		}
	}
	if err := checkEdit(content, out, false); err != nil {
		return nil, false, err
	}
	return out, !bytes.Equal(out, content), nil
}

// Reparse parses the file named name as edited (content) with a real
// parser of its format, as SPEC §19 asks after every edit: encoding/json
// for a .json file, go-toml for a .toml one. An edit that does
// not parse is ErrCannotEdit, and is not written.
func Reparse(name string, content []byte) error {
	var err error
	switch filepath.Ext(name) {
	case ".json":
		if !json.Valid(content) {
			err = errors.New("not valid JSON")
		}
	case ".toml":
		_, err = parseTOML(content)
	}
	if err != nil {
		return fmt.Errorf("git-wt's edit would not parse (%v): %w", err, ErrCannotEdit)
	}
	return nil
}
