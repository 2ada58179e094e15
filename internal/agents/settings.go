package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/jsonedit"
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
// added and every other byte kept (SPEC §16): its group appended to each
// event's list, the list or "hooks" inserted when missing. created names
// the members it inserted ("hooks", "hooks.WorktreeCreate"), for
// RemoveHooks; changed is false (and the content returned as given) when
// both hooks are there already. Empty content is a new file.
func AddHooks(content []byte) (out []byte, created []string, changed bool, err error) {
	out = content
	if len(bytes.TrimSpace(content)) == 0 {
		out = []byte("{\n}\n")
	}
	for _, ev := range hookEvents {
		root, hooks, err := parseSettings(out)
		if err != nil {
			return nil, nil, false, err
		}
		ours, _ := jsonedit.Marshal(group{Hooks: []hook{{Type: "command", Command: ev.command}}})
		switch list := hooks.Member(ev.event); {
		case hooks == nil:
			var all bytes.Buffer
			for i, ev := range hookEvents {
				name, _ := jsonedit.Marshal(ev.event)
				list, _ := jsonedit.Marshal([]group{{Hooks: []hook{{Type: "command", Command: ev.command}}}})
				if i > 0 {
					all.WriteByte(',')
				}
				fmt.Fprintf(&all, "%s:%s", name, list)
				created = append(created, "hooks."+ev.event)
			}
			out, err = jsonedit.InsertMember(out, root, "hooks", fmt.Appendf(nil, "{%s}", all.Bytes()))
			return out, append([]string{"hooks"}, created...), true, err
		case list == nil:
			out, err = jsonedit.InsertMember(out, hooks, ev.event, append(append([]byte{'['}, ours...), ']'))
			created = append(created, "hooks."+ev.event)
		case list.Kind != '[':
			return nil, nil, false, fmt.Errorf("its hooks.%s is not a list", ev.event)
		case ourGroup(out, list, ev.command) < 0:
			out, err = jsonedit.AppendElement(out, list, ours)
		default:
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		changed = true
	}
	if !changed {
		return content, nil, false, nil
	}
	return out, created, true, nil
}

// RemoveHooks returns the settings file content without git-wt's hooks,
// and without the members AddHooks created (created, as it said) when
// they are left empty; every other byte is kept.
func RemoveHooks(content []byte, created []string) (out []byte, changed bool, err error) {
	out = content
	for _, ev := range hookEvents {
		for {
			_, hooks, err := parseSettings(out)
			if err != nil {
				return nil, false, err
			}
			list := hooks.Member(ev.event)
			if list == nil || list.Kind != '[' {
				break
			}
			i := ourGroup(out, list, ev.command)
			if i < 0 {
				break
			}
			if out, err = jsonedit.RemoveElement(out, list, i); err != nil {
				return nil, false, err
			}
			changed = true
		}
	}
	for _, name := range slices.Backward(created) {
		root, hooks, err := parseSettings(out)
		if err != nil {
			return nil, false, err
		}
		parent, key := root, name
		if ev, ok := strings.CutPrefix(name, "hooks."); ok {
			parent, key = hooks, ev
		}
		if n := parent.Member(key); n != nil && len(n.Members)+len(n.Elems) == 0 && n.Kind != 0 {
			if out, err = jsonedit.RemoveMember(out, parent, key); err != nil {
				return nil, false, err
			}
			changed = true
		}
	}
	return out, changed, nil
}

// parseSettings reads the settings object and its "hooks" (nil when it
// has none).
func parseSettings(content []byte) (root, hooks *jsonedit.Node, err error) {
	root, err = jsonedit.Parse(content)
	if err != nil || root.Kind != '{' {
		return nil, nil, fmt.Errorf("the settings file is not a JSON object")
	}
	if hooks = root.Member("hooks"); hooks != nil && hooks.Kind != '{' {
		return nil, nil, fmt.Errorf("its \"hooks\" is not a JSON object")
	}
	return root, hooks, nil
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

// ourGroup is the index of git-wt's group in the list (one hook running
// command), or -1.
func ourGroup(content []byte, list *jsonedit.Node, command string) int {
	for i, e := range list.Elems {
		var g group
		if json.Unmarshal(content[e.Start:e.End], &g) == nil && len(g.Hooks) == 1 && g.Hooks[0].Command == command {
			return i
		}
	}
	return -1
}
