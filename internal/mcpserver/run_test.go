// These tests protect what a tool returns whatever git-wt does: its
// document, marked as an error when it exited non-zero, and an error
// document when it printed none or could not run.
package mcpserver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// fakeWT is a git-wt that runs script.
func fakeWT(t *testing.T, script string) *runner {
	exe := filepath.Join(t.TempDir(), "git-wt")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &runner{exe: exe, served: context.Background()}
}

func TestRunResults(t *testing.T) {
	platform.RequireScripts(t)
	cases := []struct {
		name, script string
		isError      bool
		text         string
	}{
		{"a document", `printf '{\n  "task": "%s"\n}\n' "$3"`, false, `{"task":"T"}`},
		{"a refusal's per-task document", `echo '[{"task":"T","error":{"kind":"dirty"}}]'; exit 3`, true, `[{"task":"T","error":{"kind":"dirty"}}]`},
		{"a failure with no document", `echo 'git-wt: no task "T"' >&2; exit 5`, true, `{"error":{"code":5,"kind":"not_found","message":"no task \"T\""}}`},
		{"a git-wt killed", `kill -9 $$`, true, ""},
	}
	for _, c := range cases {
		res := fakeWT(t, c.script).run(context.Background(), t.TempDir(), []string{"show", "--", "T"})
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != c.isError || (c.text != "" && text != c.text) {
			t.Errorf("%s: isError %v, %s", c.name, res.IsError, text)
		}
		if c.text == "" && (text == "" || res.StructuredContent == nil) {
			t.Errorf("%s: no error document: %s", c.name, text)
		}
	}
	if res := (&runner{exe: "/nonexistent/git-wt", served: context.Background()}).run(context.Background(), "", nil); !res.IsError {
		t.Errorf("a git-wt that cannot start: %+v", res)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, dir := range []string{filepath.Join(t.TempDir(), "gone"), file} {
		res := fakeWT(t, "echo '{}'").run(context.Background(), dir, nil)
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, `"kind":"usage"`) || !strings.Contains(text, dir) {
			t.Errorf("a call in %s: %s", dir, text)
		}
	}
}

// TestMainRefusesACommandLineGitWtDidNotWrite: git-wt-mcp run by hand,
// without the binary its tools run, is a usage error (exit 2) that says
// how to start it, not a server that fails every call.
func TestMainRefusesACommandLineGitWtDidNotWrite(t *testing.T) {
	for _, args := range [][]string{nil, {"--allow-force"}, {"--git-wt", "/bin/git-wt", "extra"}, {"--no-such-flag"}} {
		var stderr strings.Builder
		if code := Main(args, strings.NewReader(""), io.Discard, &stderr); code != exitcode.Usage {
			t.Errorf("Main(%q) = %d, want %d", args, code, exitcode.Usage)
		}
		if !strings.Contains(stderr.String(), "git wt mcp") {
			t.Errorf("Main(%q) said %q, not how to start the server", args, stderr.String())
		}
	}
}
