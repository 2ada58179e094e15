package agents

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/git-wt/git-wt/internal/jsonedit"
)

// The commands the runners that make their own worktrees run in them
// once agent-setup wrote their setup steps (SPEC §16).
const (
	AdoptCommand       = "git wt init --adopt"
	CodexRemoveCommand = "git wt agent-hook codex-remove"
)

// OwnFile is a file that is git-wt's alone (OpenCode's plugin): setup
// writes it, undo deletes it, and a file of that name with other content
// is never touched.
type OwnFile struct{ Content string }

// Add gives the file's content; a file that holds something else is
// refused.
func (f OwnFile) Add(content []byte) ([]byte, []string, bool, error) {
	switch {
	case string(content) == f.Content:
		return content, nil, false, nil
	case len(bytes.TrimSpace(content)) > 0:
		return nil, nil, false, errors.New("a file of that name is there already and is not git-wt's")
	}
	return []byte(f.Content), nil, true, nil
}

// Remove gives nil (delete the file) when it is git-wt's as written.
func (f OwnFile) Remove(content []byte, _ []string) ([]byte, bool, error) {
	if string(content) != f.Content {
		return content, false, nil
	}
	return nil, true, nil
}

// OpenCodePlugin is .opencode/plugins/git-wt.js (opencode.ai/docs/plugins,
// the V1 docs, read November 2026; OpenCode itself not run here, the
// plugin is, in Node.js): it forwards the session events that say what
// the agent does to git wt agent-hook opencode-status, in the snake-case
// shape the other runners send, and waits for nothing.
var OpenCodePlugin = OwnFile{Content: `// git-wt: reports what the agent does to git wt agent-hook opencode-status
// (written by git wt agent-setup opencode; --undo deletes it).
const events = {
  "session.created": 1, "session.idle": 1, "session.deleted": 1, "session.error": 1,
  "permission.asked": 1, "permission.updated": 1,
}
export const GitWt = async ({ $, directory }) => ({
  event: async ({ event }) => {
    if (!(event.type in events)) return
    const p = event.properties || {}
    const id = p.sessionID || (p.info && p.info.id) || ""
    const payload = JSON.stringify({ hook_event_name: event.type, session_id: id, cwd: directory })
    await $` + "`git wt agent-hook opencode-status < ${new Response(payload)}`" + `.quiet().nothrow()
  },
  "chat.message": async (input) => {
    const payload = JSON.stringify({ hook_event_name: "chat.message", session_id: input.sessionID || "", cwd: directory })
    await $` + "`git wt agent-hook opencode-status < ${new Response(payload)}`" + `.quiet().nothrow()
  },
})
`}

// CursorWorktrees is .cursor/worktrees.json (cursor.com/docs/configuration/
// worktrees, read November 2026; not run here): setup-worktree-unix,
// setup-worktree-windows or setup-worktree, each a list of commands (or a
// script's path) run in a new worktree with ROOT_WORKTREE_PATH set.
// git-wt's command goes at the end of the list a Unix worktree runs: the OS-specific one when there is
// one, else the generic one (a new -unix list would hide it), else a new
// setup-worktree-unix. Cursor has no cleanup step.
var CursorWorktrees cursorFile

type cursorFile struct{}

// cursorKeys are the lists a Unix worktree runs, the one Cursor prefers
// first.
var cursorKeys = []string{"setup-worktree-unix", "setup-worktree"}

func (cursorFile) key(root *jsonedit.Node) string {
	for _, k := range cursorKeys {
		if root.Member(k) != nil {
			return k
		}
	}
	return "setup-worktree-unix"
}

// parse reads the file's object, and refuses one that has a list of
// cursorKeys twice.
func (cursorFile) parse(content []byte) (*jsonedit.Node, error) {
	root, err := jsonedit.Parse(content)
	if err != nil || root.Kind != '{' {
		return nil, errors.New("it is not a JSON object")
	}
	return root, unique(root, "", cursorKeys...)
}

// Add puts git wt init --adopt at the end of the list, or makes the list.
func (f cursorFile) Add(content []byte) ([]byte, []string, bool, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		content = []byte("{\n}\n")
	}
	root, err := f.parse(content)
	if err != nil {
		return nil, nil, false, err
	}
	key := f.key(root)
	ours, _ := jsonedit.Marshal(AdoptCommand)
	switch list := root.Member(key); {
	case list == nil:
		out, err := jsonedit.InsertMember(content, root, key, append(append([]byte{'['}, ours...), ']'))
		return out, []string{key}, true, err
	case list.Kind != '[':
		return nil, nil, false, fmt.Errorf("its %s is a script, not a list: add %s to that script yourself", key, AdoptCommand)
	case stringElement(content, list, AdoptCommand) >= 0:
		return content, nil, false, nil
	default:
		out, err := jsonedit.AppendElement(content, list, ours)
		return out, []string{key + "[]"}, true, err
	}
}

// Remove takes git-wt's command out when setup added it (created), and
// the list when setup made it and it is left empty.
func (f cursorFile) Remove(content []byte, created []string) ([]byte, bool, error) {
	root, err := f.parse(content)
	if err != nil {
		return nil, false, err
	}
	key := f.key(root)
	list := root.Member(key)
	if list == nil || list.Kind != '[' || !addedTo(created, key, key) {
		return content, false, nil
	}
	i := stringElement(content, list, AdoptCommand)
	if i < 0 {
		return content, false, nil
	}
	out, err := jsonedit.RemoveElement(content, list, i)
	if err != nil || len(list.Elems) > 1 || !slices.Contains(created, key) {
		return out, err == nil, err
	}
	root, err = jsonedit.Parse(out)
	if err != nil {
		return nil, false, err
	}
	out, err = jsonedit.RemoveMember(out, root, key)
	return out, err == nil, err
}

// stringElement is the index of the last string s in the list (Add
// appends git-wt's), or -1.
func stringElement(content []byte, list *jsonedit.Node, s string) int {
	want, _ := jsonedit.Marshal(s)
	for i, e := range slices.Backward(list.Elems) {
		if bytes.Equal(content[e.Start:e.End], want) {
			return i
		}
	}
	return -1
}
