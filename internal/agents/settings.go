package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// The commands Claude Code's worktree hooks run once agent-setup wrote
// them: through git's own dispatch, as a user would type them.
const (
	CreateCommand = "git wt agent-hook claude-create"
	RemoveCommand = "git wt agent-hook claude-remove"
)

// hookEvents are the runner's events git-wt takes over, and its command
// for each.
var hookEvents = []struct{ event, command string }{
	{"WorktreeCreate", CreateCommand},
	{"WorktreeRemove", RemoveCommand},
}

// AddHooks returns the settings file content with git-wt's two hooks
// added, everything else kept in its order; changed is false (and the
// content returned as given) when both are there already. Empty content
// is a new file.
func AddHooks(content []byte) (out []byte, changed bool, err error) {
	return editHooks(content, func(groups []json.RawMessage, command string) ([]json.RawMessage, bool) {
		for _, g := range groups {
			if runs(g, command) {
				return groups, false
			}
		}
		ours, _ := json.Marshal(group{Hooks: []hook{{Type: "command", Command: command}}})
		return append(groups, ours), true
	})
}

// RemoveHooks returns the settings file content without git-wt's hooks,
// and nil when nothing else is left (the file was git-wt's alone).
func RemoveHooks(content []byte) (out []byte, changed bool, err error) {
	return editHooks(content, func(groups []json.RawMessage, command string) ([]json.RawMessage, bool) {
		var kept []json.RawMessage
		for _, g := range groups {
			if !runs(g, command) {
				kept = append(kept, g)
			}
		}
		return kept, len(kept) != len(groups)
	})
}

// group is one entry of a hook event's list: hooks run together.
type group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []hook `json:"hooks"`
}

type hook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// runs reports whether the group is git-wt's: one hook running command.
func runs(raw json.RawMessage, command string) bool {
	var g group
	return json.Unmarshal(raw, &g) == nil && len(g.Hooks) == 1 && g.Hooks[0].Command == command
}

// editHooks applies edit to the list of each of git-wt's events under
// "hooks", and writes the file again only if an edit changed something.
func editHooks(content []byte, edit func(groups []json.RawMessage, command string) ([]json.RawMessage, bool)) ([]byte, bool, error) {
	settings, err := parseObject(content)
	if err != nil {
		return nil, false, fmt.Errorf("the settings file is not a JSON object: %v", err)
	}
	raw, _ := settings.get("hooks")
	hooks, err := parseObject(raw)
	if err != nil {
		return nil, false, fmt.Errorf("its \"hooks\" is not a JSON object: %v", err)
	}
	changed := false
	for _, ev := range hookEvents {
		var groups []json.RawMessage
		if raw, ok := hooks.get(ev.event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf("its hooks.%s is not a list: %v", ev.event, err)
			}
		}
		groups, edited := edit(groups, ev.command)
		if !edited {
			continue
		}
		changed = true
		if len(groups) == 0 {
			hooks.remove(ev.event)
			continue
		}
		// Joined as they are: json.Marshal would escape the user's
		// "&&" as \u0026\u0026.
		list := []byte{'['}
		for i, g := range groups {
			if i > 0 {
				list = append(list, ',')
			}
			list = append(list, g...)
		}
		hooks.set(ev.event, append(list, ']'))
	}
	if !changed {
		return content, false, nil
	}
	if len(hooks) == 0 {
		settings.remove("hooks")
	} else {
		settings.set("hooks", hooks.marshal())
	}
	if len(settings) == 0 {
		return nil, true, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, settings.marshal(), "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), true, nil
}

// object is a JSON object with its members in the order of the file, so
// that an edit keeps the user's order.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads a JSON object; empty input is an empty object.
func parseObject(data []byte) (object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object, got %v %v", t, err)
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		o = append(o, member{key: t.(string), value: value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key's value where it is, or adds it at the end.
func (o *object) set(key string, value json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key: key, value: value})
}

func (o *object) remove(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// marshal writes the object compactly, members in order.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
