package agents

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// CodexEnvironment is the Codex app's .codex/environments/environment.toml
// (developers.openai.com/codex/app/local-environments, Codex app 26.5):
// [setup] script runs in each worktree the app makes (CODEX_WORKTREE_PATH),
// [cleanup] script before it deletes one. git-wt's line goes first into
// the setup script (the worktree is a task before the user's setup runs)
// and last into the cleanup script. The TOML is edited as text, only
// git-wt's line inserted, so that every other byte stays (SPEC §16).
var CodexEnvironment codexFile

type codexFile struct{}

// codexSteps are the tables and git-wt's line in each, and whether it goes
// at the end of the script.
var codexSteps = []struct {
	table, line string
	last        bool
}{
	{"setup", AdoptCommand, false},
	{"cleanup", CodexRemoveCommand, true},
}

var (
	tableHeader = regexp.MustCompile(`(?m)^[ \t]*\[([A-Za-z0-9_.\- ]+)\][ \t]*(#.*)?$`)
	scriptKey   = regexp.MustCompile(`(?m)^[ \t]*script[ \t]*=[ \t]*`)
)

// script finds the value of script = in [table]: where the string's text
// starts and ends, and its quote (three single or double quotes, or
// one); found false when there is no such table (tableEnd -1) or no
// script in it (tableEnd where to insert one).
func script(src []byte, table string) (start, end int, quote string, tableEnd int, found bool) {
	headers := tableHeader.FindAllSubmatchIndex(src, -1)
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
		k := scriptKey.FindIndex(src[body:bodyEnd])
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
				return 0, 0, "", 0, false
			}
			return from, from + close, q, body, true
		}
		return 0, 0, "", 0, false
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

// insertion is the text git-wt puts into a script quoted by quote, at its
// start or its end.
func insertion(line, quote string, last bool) string {
	switch {
	case len(quote) == 3 && last:
		return line + "\n"
	case len(quote) == 3:
		return line + "\n"
	case quote == `"` && last:
		return `\n` + line
	case quote == `"`:
		return line + `\n`
	case last:
		return " && " + line
	}
	return line + " && "
}

// Add inserts git-wt's lines; a new table or key is noted in created.
func (codexFile) Add(content []byte) ([]byte, []string, bool, error) {
	out := content
	var created []string
	changed := false
	for _, st := range codexSteps {
		start, end, quote, tableEnd, found := script(out, st.table)
		var text string
		at := 0
		switch {
		case found && strings.Contains(string(out[start:end]), st.line):
			continue
		case found && quote == "'''" || found && quote == `"""`:
			text, at = insertion(st.line, quote, st.last), start
			if st.last {
				at = end
				if end > start && out[end-1] != '\n' {
					text = "\n" + st.line
				}
			}
		case found:
			text, at = insertion(st.line, quote, st.last), start
			if st.last {
				at = end
			}
		case tableEnd >= 0:
			text, at = "script = '''\n"+st.line+"\n'''\n", tableEnd
			created = append(created, st.table+".script")
		default:
			if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
				return nil, nil, false, errors.New("it does not end with a newline")
			}
			text, at = fmt.Sprintf("\n[%s]\nscript = '''\n%s\n'''\n", st.table, st.line), len(out)
			created = append(created, st.table)
		}
		out = append(append(append([]byte{}, out[:at]...), text...), out[at:]...)
		changed = true
	}
	if !changed {
		return content, nil, false, nil
	}
	return out, created, true, nil
}

// Remove takes git-wt's lines out again, and the tables or keys Add made.
func (codexFile) Remove(content []byte, created []string) ([]byte, bool, error) {
	out := content
	changed := false
	made := map[string]bool{}
	for _, c := range created {
		made[c] = true
	}
	for _, st := range codexSteps {
		start, end, quote, _, found := script(out, st.table)
		if !found {
			continue
		}
		for _, block := range []struct{ text, made string }{
			{fmt.Sprintf("\n[%s]\nscript = '''\n%s\n'''\n", st.table, st.line), st.table},
			{"script = '''\n" + st.line + "\n'''\n", st.table + ".script"},
		} {
			if i := bytes.Index(out, []byte(block.text)); i >= 0 && made[block.made] {
				block := block.text
				out = append(out[:i:i], out[i+len(block):]...)
				changed = true
				goto next
			}
		}
		{
			candidates := []string{insertion(st.line, quote, st.last), "\n" + st.line}
			value := string(out[start:end])
			for _, c := range candidates {
				var i int
				if st.last {
					i = strings.LastIndex(value, c)
				} else {
					i = strings.Index(value, c)
				}
				if i >= 0 {
					out = append(out[:start+i:start+i], out[start+i+len(c):]...)
					changed = true
					break
				}
			}
		}
	next:
	}
	return out, changed, nil
}
