// These tests protect what a client can make git-wt do: each tool's input
// becomes exactly its command's flags, no value becomes a flag, force
// needs the server's consent, and every input is described to the model.
package mcpserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/git-wt/git-wt/internal/exitcode"
)

func TestArgv(t *testing.T) {
	must := func(argv []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return argv
	}
	cases := []struct {
		got, want []string
	}{
		{newArgv(NewInput{Task: "T"}), []string{"new", "--json", "--", "T"}},
		{newArgv(NewInput{Task: "--force", Base: "-x", Branch: "b", Path: "p q", NoInit: true}),
			[]string{"new", "--json", "--base=-x", "--branch=b", "--path=p q", "--no-init", "--", "--force"}},
		{listArgv(ListInput{}), []string{"list", "--json"}},
		{listArgv(ListInput{NoStatus: true, All: true}), []string{"list", "--json", "--no-status", "--all"}},
		{showArgv(TaskInput{Task: "T"}), []string{"show", "--json", "--", "T"}},
		{pathArgv(TaskInput{Task: "T"}), []string{"path", "--json", "--", "T"}},
		{envArgv(TaskInput{Task: "T"}), []string{"env", "--json", "--", "T"}},
		{commitArgv(CommitInput{Task: "T", Message: "-m fix"}), []string{"commit", "--json", "--message=-m fix", "--", "T"}},
		{must(rmArgv(RmInput{Tasks: []string{"a", "b"}}, false)), []string{"rm", "--json", "--", "a", "b"}},
		{must(rmArgv(RmInput{Tasks: []string{"a"}, IgnoreInUse: true}, false)), []string{"rm", "--json", "--ignore-in-use", "--", "a"}},
		{must(rmArgv(RmInput{Tasks: []string{"a"}, KeepBranch: true, DryRun: true, Force: true}, true)),
			[]string{"rm", "--json", "--keep-branch", "--dry-run", "--force", "--", "a"}},
		{must(mergeArgv(MergeInput{Task: "T"})), []string{"merge", "--json", "--", "T"}},
		{must(mergeArgv(MergeInput{Task: "T", Into: "dev", Mode: "squash", Message: "m", Keep: true})),
			[]string{"merge", "--json", "--into=dev", "--squash", "--message=m", "--keep", "--", "T"}},
		{must(syncArgv(SyncInput{All: true, Mode: "merge", DryRun: true, Fetch: true})),
			[]string{"sync", "--json", "--all", "--merge", "--dry-run", "--fetch", "--"}},
		{must(syncArgv(SyncInput{Tasks: []string{"a", "b"}})), []string{"sync", "--json", "--", "a", "b"}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("argv %q, want %q", c.got, c.want)
		}
	}
}

func TestForceNeedsTheServersConsent(t *testing.T) {
	_, err := rmArgv(RmInput{Tasks: []string{"a"}, Force: true}, false)
	if exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("rm force without --allow-force: %v, want a usage error", err)
	}
}

func TestModesNeverBecomeOtherFlags(t *testing.T) {
	if _, err := mergeArgv(MergeInput{Task: "T", Mode: "force"}); exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("merge mode force: %v, want a usage error", err)
	}
	if _, err := syncArgv(SyncInput{All: true, Mode: "squash"}); exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("sync mode squash: %v, want a usage error", err)
	}
}

func TestSchemas(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{
		"new": inputSchema[NewInput](), "list": inputSchema[ListInput](), "task": inputSchema[TaskInput](),
		"commit": inputSchema[CommitInput](), "rm": inputSchema[RmInput](),
		"merge": inputSchema[MergeInput](), "sync": inputSchema[SyncInput](),
	}
	for name, s := range schemas {
		if s.Properties["dir"] == nil || slices.Contains(s.Required, "dir") {
			t.Errorf("%s: dir must be an optional property", name)
		}
		for prop, p := range s.Properties {
			if strings.TrimSpace(p.Description) == "" {
				t.Errorf("%s.%s has no description", name, prop)
			}
		}
	}
	if got := schemas["merge"].Properties["mode"].Enum; !reflect.DeepEqual(got, []any{"ff-only", "no-ff", "squash", "rebase"}) {
		t.Errorf("merge mode enum %v", got)
	}
	if got := schemas["sync"].Properties["mode"].Enum; !reflect.DeepEqual(got, []any{"rebase", "merge"}) {
		t.Errorf("sync mode enum %v", got)
	}
	if tasks := schemas["rm"].Properties["tasks"]; tasks.Type != "array" || !slices.Contains(schemas["rm"].Required, "tasks") {
		t.Errorf("rm tasks: %+v, required %v", tasks, schemas["rm"].Required)
	}
	if !slices.Equal(schemas["commit"].Required, []string{"task", "message"}) {
		t.Errorf("commit requires %v", schemas["commit"].Required)
	}
}

func TestDocuments(t *testing.T) {
	if got := string(errorJSON(5, "git-wt: no task \"x\"")); got != `{"error":{"code":5,"kind":"not_found","message":"no task \"x\""}}` {
		t.Errorf("error document %s", got)
	}
	if got := string(compact([]byte("{\n  \"a\": [1, 2]\n}\n"))); got != `{"a":[1,2]}` {
		t.Errorf("compact %s", got)
	}
	if res := result([]byte(`[{"task":"a"}]`), true); res.StructuredContent != nil || !res.IsError {
		t.Errorf("an array must be text only: %+v", res)
	}
	if res := result([]byte(`{"task":"a"}`), false); res.StructuredContent == nil || res.IsError {
		t.Errorf("an object must be structured content too: %+v", res)
	}
}

func TestBadArgumentsAreUsageErrors(t *testing.T) {
	merge, _ := inputSchema[MergeInput]().Resolve(nil)
	list, _ := inputSchema[ListInput]().Resolve(nil)
	for _, raw := range []string{`{"task":"T","mode":"force"}`, `{"mode":"squash"}`, `{"task":"T","force":true}`, `{"task":3}`, `[`} {
		if _, err := decode[MergeInput](merge, json.RawMessage(raw)); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("merge %s: %v, want a usage error", raw, err)
		}
	}
	if in, err := decode[MergeInput](merge, json.RawMessage(`{"task":"T","mode":"squash","dir":"/r"}`)); err != nil || in.Mode != "squash" || in.dir() != "/r" {
		t.Errorf("a good merge input read as %+v, %v", in, err)
	}
	if _, err := decode[ListInput](list, nil); err != nil {
		t.Errorf("list without arguments: %v", err)
	}
}
