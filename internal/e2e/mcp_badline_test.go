//go:build unix

// This test protects the calls of every agent on one MCP server from one
// client's bad line: a line that is not JSON, or one longer than the
// server reads, gets a JSON-RPC parse error (-32700) and the server goes
// on serving; a call in flight is neither cancelled nor rolled back.
package e2e

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMCPBadLineGetsParseErrorAndServingGoesOn(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	started, release := filepath.Join(s.Home, "started"), filepath.Join(s.Home, "release")
	// The new call stays in flight until the bad lines are answered.
	s.Git(s.Repo, "config", "wt.init", "touch "+started+"; while [ ! -e "+release+" ]; do sleep 0.05; done")
	cmd := s.Cmd(s.Repo, "mcp")
	var serr strings.Builder
	cmd.Stderr = &serr
	in, replies := startPiped(t, cmd)
	next := func() map[string]any {
		t.Helper()
		line, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("the server stopped answering (%v); it said:\n%s", err, serr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("the server printed %q", line)
		}
		return m
	}
	io.WriteString(in, mcpHello+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"new","arguments":{"task":"kept"}}}
`)
	if m := next(); m["id"] != 1.0 {
		t.Fatalf("no answer to initialize: %v", m)
	}
	waitFor(t, func() bool { return testutil.Exists(started) })
	io.WriteString(in, "this is not json\n")
	if m := next(); !parseError(m) {
		t.Fatalf("a line that is not JSON got %v, not a parse error", m)
	}
	huge := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list","arguments":{"x":"` + strings.Repeat("a", 17<<20) + `"}}}` + "\n"
	io.WriteString(in, huge)
	if m := next(); !parseError(m) {
		t.Fatalf("a line over 16 MiB got %v, not a parse error", m)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list","arguments":{}}}`+"\n")
	if m := next(); m["id"] != 3.0 || m["result"] == nil {
		t.Fatalf("the call after the bad lines got %v", m)
	}
	if err := os.WriteFile(release, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if m := next(); m["id"] != 2.0 || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("the new in flight got %v\nthe server said: %s", m, serr.String())
	}
	in.Close()
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("the server exited %d when its client hung up:\n%s", code, serr.String())
	}
	if s.Git(s.Repo, "for-each-ref", "--format=%(refname)", "refs/git-wt/tasks/") != "refs/git-wt/tasks/kept" || consistent(t, s) != 1 {
		t.Fatal("the new in flight did not stay")
	}
}

// parseError says whether m is a JSON-RPC parse error reply.
func parseError(m map[string]any) bool {
	e, ok := m["error"].(map[string]any)
	_, hasID := m["id"]
	return ok && e["code"] == -32700.0 && hasID && m["id"] == nil
}
