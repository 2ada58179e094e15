package agents

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestEveryPayloadShapeNamesItsTask(t *testing.T) {
	for _, tc := range []struct{ payload, id, base, dir string }{
		{`{"name":"fix-1","cwd":"/r","hook_event_name":"WorktreeCreate"}`, "fix-1", "", "/r"},
		{`{"worktree_name":"w","base_commit":"abc123","cwd":"/r","session_id":"s"}`, "w", "abc123", "/r"},
		{`{"worktree_path":"/r/.claude/worktrees/agent-7/","source_ref":"main","cwd":"/r"}`, "agent-7", "main", "/r"},
		{`{"branch_name":"b","base_path":"/repo","base_ref":"dev"}`, "b", "dev", "/repo"},
	} {
		p, err := ReadPayload(strings.NewReader(tc.payload))
		if err != nil {
			t.Fatal(err)
		}
		id, err := p.TaskID()
		if id != tc.id || err != nil || p.Base() != tc.base || p.Dir() != tc.dir {
			t.Errorf("%s: id %q (%v), base %q, dir %q", tc.payload, id, err, p.Base(), p.Dir())
		}
	}
	for _, bad := range []string{``, `[1]`, `{"cwd":"/r"}`, `{"worktree_path":"/"}`, `{"name":"  "}`} {
		p, err := ReadPayload(strings.NewReader(bad))
		if err == nil {
			_, err = p.TaskID()
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadPayloadDoesNotWaitForTheEndOfInput(t *testing.T) {
	r, w := pipe()
	defer w.Close()
	w.Write([]byte(`{"name":"x"}` + "\n"))
	if p, err := ReadPayload(r); err != nil || p.Name != "x" {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestAddHooksKeepsEverythingElseAndRemoveHooksRestoresIt(t *testing.T) {
	original := indent(t, `{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"a && b"}]}],"WorktreeCreate":[{"hooks":[{"type":"command","command":"mine"}]}]},"env":{"X":"1"}}`)
	added, changed, err := AddHooks(original)
	if err != nil || !changed {
		t.Fatalf("add: %v %v", changed, err)
	}
	var doc struct {
		Model string
		Hooks map[string][]group
		Env   map[string]string
	}
	if err := json.Unmarshal(added, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Model != "opus" || doc.Env["X"] != "1" || doc.Hooks["PreToolUse"][0].Hooks[0].Command != "a && b" {
		t.Errorf("other settings lost: %s", added)
	}
	if got := doc.Hooks["WorktreeCreate"]; len(got) != 2 || got[0].Hooks[0].Command != "mine" || got[1].Hooks[0].Command != CreateCommand {
		t.Errorf("WorktreeCreate: %+v", got)
	}
	if got := doc.Hooks["WorktreeRemove"]; len(got) != 1 || got[0].Hooks[0].Command != RemoveCommand {
		t.Errorf("WorktreeRemove: %+v", got)
	}
	if strings.Index(string(added), `"model"`) > strings.Index(string(added), `"env"`) {
		t.Error("the members changed order")
	}
	again, changed, _ := AddHooks(added)
	if changed || !bytes.Equal(again, added) {
		t.Error("a second add changed the file")
	}
	removed, changed, err := RemoveHooks(added)
	if err != nil || !changed || !bytes.Equal(removed, original) {
		t.Errorf("remove gave\n%s\nwant\n%s", removed, original)
	}
}

func TestHooksInANewFileLeaveNoFileBehind(t *testing.T) {
	added, changed, err := AddHooks(nil)
	if err != nil || !changed || !json.Valid(added) {
		t.Fatalf("add to nothing: %s %v", added, err)
	}
	if removed, _, err := RemoveHooks(added); err != nil || removed != nil {
		t.Errorf("remove left %q (%v), want no file", removed, err)
	}
	for _, bad := range []string{`[1]`, `{"hooks":3}`, `{"hooks":{"WorktreeCreate":{}}}`, `{`} {
		if _, _, err := AddHooks([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzSettingsRoundTrip: whatever JSON object a user has, adding the hooks
// and taking them out again gives it back (less an empty list of the two
// events, or an empty "hooks", which are not told from git-wt's own), and
// nothing panics.
func FuzzSettingsRoundTrip(f *testing.F) {
	f.Add([]byte(`{"hooks":{"WorktreeRemove":[]},"a":[1,2]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":[]},"model":"x"}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		if bytes.Contains(content, []byte("agent-hook")) {
			return // git-wt's own hooks, or lookalikes: removed with ours
		}
		added, changed, err := AddHooks(content)
		if err != nil || !changed {
			return // not an object: nothing to restore
		}
		removed, _, err := RemoveHooks(added)
		if err != nil {
			t.Fatalf("remove after add: %v", err)
		}
		var want, got any
		json.Unmarshal(content, &want)
		if removed != nil {
			json.Unmarshal(removed, &got)
		}
		if !reflect.DeepEqual(got, withoutEmpties(want)) {
			t.Errorf("round trip of %s gave %s", content, removed)
		}
	})
}

// withoutEmpties drops from a settings document what RemoveHooks does not
// restore: empty lists of git-wt's events, an empty "hooks", an empty
// document.
func withoutEmpties(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	if hooks, ok := m["hooks"].(map[string]any); ok {
		for _, ev := range hookEvents {
			if l, ok := hooks[ev.event].([]any); ok && len(l) == 0 {
				delete(hooks, ev.event)
			}
		}
		if len(hooks) == 0 {
			delete(m, "hooks")
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// FuzzReadPayload: any input gives a payload or an error, never a panic,
// and a task id is never empty.
func FuzzReadPayload(f *testing.F) {
	f.Add(`{"worktree_path":"/a/b"}`)
	f.Add(`{"name":"x","cwd":"/"}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadPayload(strings.NewReader(in))
		if err != nil {
			return
		}
		if id, err := p.TaskID(); err == nil && strings.TrimSpace(id) == "" {
			t.Errorf("%q: empty task id", in)
		}
	})
}

func indent(t *testing.T, s string) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), '\n')
}
