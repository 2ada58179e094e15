package agents

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
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
	added, created, changed, err := AddHooks(original)
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
	again, _, changed, _ := AddHooks(added)
	if changed || !bytes.Equal(again, added) {
		t.Error("a second add changed the file")
	}
	removed, changed, err := RemoveHooks(added, created)
	if err != nil || !changed || !bytes.Equal(removed, original) {
		t.Errorf("remove gave\n%s\nwant\n%s", removed, original)
	}
}

func TestHooksInANewFileAreAllThereIs(t *testing.T) {
	added, created, changed, err := AddHooks(nil)
	if err != nil || !changed || !json.Valid(added) {
		t.Fatalf("add to nothing: %s %v", added, err)
	}
	if removed, _, err := RemoveHooks(added, created); err != nil || string(removed) != "{\n}\n" {
		t.Errorf("remove left %q (%v), want an empty object", removed, err)
	}
	for _, bad := range []string{`[1]`, `{"hooks":3}`, `{"hooks":{"WorktreeCreate":{}}}`, `{`} {
		if _, _, _, err := AddHooks([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestHooksKeepEveryOtherByte: the setup inserts, and the undo takes out,
// only git-wt's own entries, in files of every layout; a member the user
// had (an empty event list) stays.
func TestHooksKeepEveryOtherByte(t *testing.T) {
	for _, original := range []string{
		"{\n\t\"model\" :  \"opus\",\n\t\"env\": {\"A\": \"x \\u0026\\u0026 y\"}\n}",
		"{\n    \"hooks\": {\"WorktreeCreate\": []}\n}\n",
		"{\r\n  \"hooks\": {\r\n    \"WorktreeRemove\": [\r\n      {\"hooks\": []}\r\n    ]\r\n  }\r\n}\r\n",
		`{"permissions":{"allow":["Bash(ls)"]},"hooks":{"Stop":[]}}`,
		"{\n}\n",
	} {
		added, created, _, err := AddHooks([]byte(original))
		if err != nil || !json.Valid(added) || !testutil.InsertsOnly(original, string(added)) {
			t.Errorf("%q: add gave %q (%v)", original, added, err)
			continue
		}
		if removed, _, err := RemoveHooks(added, created); err != nil || string(removed) != original {
			t.Errorf("%q: remove gave %q (%v)", original, removed, err)
		}
	}
}

// FuzzSettingsRoundTrip: whatever JSON object a user has, adding the hooks
// only inserts bytes, taking them out again gives the same settings back,
// and nothing panics.
func FuzzSettingsRoundTrip(f *testing.F) {
	f.Add([]byte(`{"hooks":{"WorktreeRemove":[]},"a":[1,2]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":[]},"model":"x"}`))
	f.Add([]byte("{\n\t\"a\": [\n\t\t1\n\t],\n\t\"hooks\": {\n\t}\n}\n"))
	f.Add([]byte("{\r\n  \"hooks\": {\"WorktreeCreate\": [ ]}\r\n}"))
	f.Add([]byte(`{"x":"\u0026\"}","hooks":{"WorktreeCreate":[{"hooks":[]}]}}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		if bytes.Contains(content, []byte("agent-hook")) || bytes.Contains(content, []byte(`\u`)) {
			return // git-wt's own hooks, or lookalikes (escaped too): removed with ours
		}
		added, created, changed, err := AddHooks(content)
		if err != nil || !changed || len(bytes.TrimSpace(content)) == 0 {
			return // not an object, or a new file (whose undo deletes it)
		}
		if !json.Valid(added) || !testutil.InsertsOnly(string(content), string(added)) {
			t.Fatalf("add to %q gave %q", content, added)
		}
		removed, _, err := RemoveHooks(added, created)
		if err != nil {
			t.Fatalf("remove after add: %v", err)
		}
		var want, got any
		json.Unmarshal(content, &want)
		json.Unmarshal(removed, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip of %q gave %q", content, removed)
		}
	})
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
