package agents

import (
	"bytes"
	"encoding/json"
	"errors"
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

// StatusCommand is the command a runner's session hooks run to report
// what its agent does (SPEC §16).
func StatusCommand(runner string) string { return "git wt agent-hook " + runner + "-status" }

// Hook is one of a runner's events and the command git-wt has it run.
type Hook struct{ Event, Command string }

// HookFile is a runner's JSON file of hooks: an object whose "hooks"
// member maps each event to a list of entries. What differs from runner
// to runner is which events, the shape of one entry, and what a new file
// starts as.
type HookFile struct {
	Hooks []Hook
	// Entry is the element git-wt appends to an event's list.
	Entry func(command string) any
	// Seed is the content of a file setup creates, before the hooks.
	Seed string
}

// claudeEntry is an entry of Claude Code's, Codex's and Gemini CLI's
// hook lists: a group of commands run together.
func claudeEntry(command string) any {
	return group{Hooks: []hook{{Type: "command", Command: command}}}
}

// ClaudeSettings is what agent-setup claude puts in Claude Code's
// settings (code.claude.com/docs/en/hooks; run by the tests: Claude Code
// 2.1.197): the worktree
// hooks (SPEC §13) and the session hooks that report the agent's state
// (SPEC §16). PostToolUse marks an agent working again after a person
// answered its question.
var ClaudeSettings = &HookFile{
	Hooks: append([]Hook{
		{"WorktreeCreate", CreateCommand},
		{"WorktreeRemove", RemoveCommand},
	}, statusHooks("claude", "SessionStart", "UserPromptSubmit", "PostToolUse", "Notification", "Stop", "SessionEnd")...),
	Entry: claudeEntry,
	Seed:  "{\n}\n",
}

// CodexHooks is .codex/hooks.json (developers.openai.com/codex/hooks, the
// May 2026 docs, where hooks are on by default; not run here): the same
// shape as Claude Code's; Codex has no SessionEnd, and asks a person
// through PermissionRequest.
var CodexHooks = &HookFile{
	Hooks: statusHooks("codex", "SessionStart", "UserPromptSubmit", "PostToolUse", "PermissionRequest", "Stop"),
	Entry: claudeEntry,
	Seed:  "{\n}\n",
}

// GeminiSettings is .gemini/settings.json (geminicli.com/docs/hooks/
// reference; run by the tests: Gemini CLI 0.61.0): the same shape; the
// turn is BeforeAgent … AfterAgent.
var GeminiSettings = &HookFile{
	Hooks: statusHooks("gemini", "SessionStart", "BeforeAgent", "AfterTool", "Notification", "AfterAgent", "SessionEnd"),
	Entry: claudeEntry,
	Seed:  "{\n}\n",
}

// copilotEvents are Copilot CLI's camel-case events (docs.github.com
// copilot-cli-reference/cli-hooks-reference, read November 2026, Copilot
// CLI 1.0.x; not run here): their
// payloads carry no event name, so each command names its event.
var copilotEvents = []string{"sessionStart", "userPromptSubmitted", "postToolUse", "notification", "agentStop", "sessionEnd"}

// CopilotHooks is .github/hooks/git-wt.json, a file of git-wt's own:
// version 1, each entry one command with its bash line.
var CopilotHooks = &HookFile{
	Hooks: func() []Hook {
		var hs []Hook
		for _, ev := range copilotEvents {
			hs = append(hs, Hook{ev, StatusCommand("copilot") + " " + ev})
		}
		return hs
	}(),
	Entry: func(command string) any {
		return copilotEntry{Type: "command", Bash: command, TimeoutSec: 10}
	},
	Seed: "{\n  \"version\": 1\n}\n",
}

type copilotEntry struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec"`
}

func statusHooks(runner string, events ...string) []Hook {
	hs := make([]Hook, len(events))
	for i, ev := range events {
		hs[i] = Hook{ev, StatusCommand(runner)}
	}
	return hs
}

// ErrCannotEdit is the error of a file git-wt cannot edit exactly (SPEC
// §19): a key it would edit that is there twice, a form of TOML it does
// not write, an edit that would not parse again. Such a file is refused as
// it is.
var ErrCannotEdit = errors.New("git-wt cannot edit it exactly")

// AddHooks adds git-wt's hooks to Claude Code's settings.
func AddHooks(content []byte) ([]byte, []string, bool, error) { return ClaudeSettings.Add(content) }

// RemoveHooks takes them out again.
func RemoveHooks(content []byte, created []string) ([]byte, bool, error) {
	return ClaudeSettings.Remove(content, created)
}

// Add returns the file's content with git-wt's hooks added and every
// other byte kept (SPEC §16): an entry appended to each event's list, the
// list or "hooks" inserted when missing. created names the members it
// inserted ("hooks", "hooks.WorktreeCreate") and the lists it appended an
// entry to ("hooks.Stop[]"), for Remove; changed is
// false (and the content returned as given) when every hook is there
// already. Empty content is a new file.
func (f *HookFile) Add(content []byte) (out []byte, created []string, changed bool, err error) {
	out = content
	if len(bytes.TrimSpace(content)) == 0 {
		out = []byte(f.Seed)
	}
	for _, h := range f.Hooks {
		root, hooks, err := parseSettings(out, f.events()...)
		if err != nil {
			return nil, nil, false, err
		}
		ours, _ := jsonedit.Marshal(f.Entry(h.Command))
		switch list := hooks.Member(h.Event); {
		case hooks == nil:
			var all bytes.Buffer
			for i, h := range f.Hooks {
				name, _ := jsonedit.Marshal(h.Event)
				list, _ := jsonedit.Marshal([]any{f.Entry(h.Command)})
				if i > 0 {
					all.WriteByte(',')
				}
				fmt.Fprintf(&all, "%s:%s", name, list)
				created = append(created, "hooks."+h.Event)
			}
			out, err = jsonedit.InsertMember(out, root, "hooks", fmt.Appendf(nil, "{%s}", all.Bytes()))
			return out, append([]string{"hooks"}, created...), true, err
		case list == nil:
			out, err = jsonedit.InsertMember(out, hooks, h.Event, append(append([]byte{'['}, ours...), ']'))
			created = append(created, "hooks."+h.Event)
		case list.Kind != '[':
			return nil, nil, false, fmt.Errorf("its hooks.%s is not a list", h.Event)
		case ourEntry(out, list, h.Command) < 0:
			out, err = jsonedit.AppendElement(out, list, ours)
			created = append(created, "hooks."+h.Event+"[]")
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

// Remove returns the file's content without the hooks Add added (created,
// as it said), and without the members it created when they are left
// empty; every other byte is kept. An entry of the same text that Add did
// not add is the user's, and stays (SPEC §19: by identity, not by text).
func (f *HookFile) Remove(content []byte, created []string) (out []byte, changed bool, err error) {
	out = content
	for _, h := range f.Hooks {
		if !addedTo(created, "hooks", "hooks."+h.Event) {
			continue
		}
		_, hooks, err := parseSettings(out, f.events()...)
		if err != nil {
			return nil, false, err
		}
		list := hooks.Member(h.Event)
		if list == nil || list.Kind != '[' {
			continue
		}
		if i := ourEntry(out, list, h.Command); i >= 0 {
			if out, err = jsonedit.RemoveElement(out, list, i); err != nil {
				return nil, false, err
			}
			changed = true
		}
	}
	for _, name := range slices.Backward(created) {
		root, hooks, err := parseSettings(out, f.events()...)
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
// has none), and refuses a "hooks", or one of the events in it, that is
// there twice.
func parseSettings(content []byte, events ...string) (root, hooks *jsonedit.Node, err error) {
	root, err = jsonedit.Parse(content)
	if err != nil || root.Kind != '{' {
		return nil, nil, fmt.Errorf("the settings file is not a JSON object")
	}
	if err := unique(root, "", "hooks"); err != nil {
		return nil, nil, err
	}
	if hooks = root.Member("hooks"); hooks != nil && hooks.Kind != '{' {
		return nil, nil, fmt.Errorf("its \"hooks\" is not a JSON object")
	}
	return root, hooks, unique(hooks, "hooks.", events...)
}

// unique refuses an object that has one of keys twice; prefix is the
// object's place, for the message.
func unique(obj *jsonedit.Node, prefix string, keys ...string) error {
	for _, k := range keys {
		if obj.Duplicated(k) {
			return fmt.Errorf("it has %s%s twice, and a runner reads only one of them: %w", prefix, k, ErrCannotEdit)
		}
	}
	return nil
}

// events are the file's events, which git-wt edits.
func (f *HookFile) events() []string {
	evs := make([]string, len(f.Hooks))
	for i, h := range f.Hooks {
		evs[i] = h.Event
	}
	return evs
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

// addedTo reports whether Add noted (in created) that it made the
// member list, or one of the members that hold it (outer), or appended an
// entry to list ("list[]").
func addedTo(created []string, outer, list string) bool {
	return slices.Contains(created, outer) || slices.Contains(created, list) || slices.Contains(created, list+"[]")
}

// ourEntry is the index of the last entry in the list that is git-wt's
// (a group of one hook running command, or a Copilot entry whose bash
// line it is: Add appends it), or -1.
func ourEntry(content []byte, list *jsonedit.Node, command string) int {
	for i, e := range slices.Backward(list.Elems) {
		var g struct {
			Hooks []hook `json:"hooks"`
			Bash  string `json:"bash"`
		}
		if json.Unmarshal(content[e.Start:e.End], &g) != nil {
			continue
		}
		if (len(g.Hooks) == 1 && g.Hooks[0].Command == command) || g.Bash == command {
			return i
		}
	}
	return -1
}

// StatusLineCommand is Claude Code's status line once agent-setup claude
// --statusline set it.
const StatusLineCommand = "git wt statusline"

// ClaudeStatusLine is ClaudeSettings and, when the settings have no
// status line of their own, "statusLine" running git wt statusline
// (code.claude.com/docs/en/statusline: type command, the session's JSON
// on stdin). A status line of the user's is kept.
var ClaudeStatusLine statusLineFile

type statusLineFile struct{}

type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

func (statusLineFile) Add(content []byte) ([]byte, []string, bool, error) {
	out, created, changed, err := ClaudeSettings.Add(content)
	if err != nil {
		return nil, nil, false, err
	}
	if !changed {
		out = content
		if len(bytes.TrimSpace(out)) == 0 {
			out = []byte(ClaudeSettings.Seed)
		}
	}
	root, _, err := parseSettings(out)
	if err == nil {
		err = unique(root, "", "statusLine")
	}
	if err != nil {
		return nil, nil, false, err
	}
	if root.Member("statusLine") != nil {
		return out, created, changed, nil
	}
	ours, _ := jsonedit.Marshal(statusLine{Type: "command", Command: StatusLineCommand})
	out, err = jsonedit.InsertMember(out, root, "statusLine", ours)
	return out, append(created, "statusLine"), true, err
}

func (statusLineFile) Remove(content []byte, created []string) ([]byte, bool, error) {
	out, changed, err := ClaudeSettings.Remove(content, created)
	if err != nil {
		return nil, false, err
	}
	root, _, err := parseSettings(out)
	if err == nil {
		err = unique(root, "", "statusLine")
	}
	if err != nil {
		return nil, false, err
	}
	var sl statusLine
	if n := root.Member("statusLine"); slices.Contains(created, "statusLine") && n != nil && json.Unmarshal(out[n.Start:n.End], &sl) == nil && sl.Command == StatusLineCommand {
		out, err = jsonedit.RemoveMember(out, root, "statusLine")
		changed = true
	}
	return out, changed, err
}
