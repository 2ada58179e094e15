//go:build unix

// These tests protect git wt mcp as a client git-wt did not write sees it:
// the official TypeScript SDK's client, installed from npm, spawns the
// server and calls its tools, which create, list, commit, refuse to remove
// a dirty task, and merge, with the command line's documents and kinds:
// every result is held to the command's schema in docs/schema.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/git-wt/git-wt/internal/testutil"
)

// mcpSDKVersion is the TypeScript SDK the tests install: pinned, so that
// a new release cannot change what the tests prove.
const mcpSDKVersion = "1.32.2"

func TestMCPAgentSession(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	c := startMCP(t, s)

	var names []string
	for _, tool := range c.tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"commit", "env", "list", "merge", "new", "path", "rm", "show", "sync"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	created := c.call("new", map[string]any{"task": "feature"}).ok(t)
	dir, _ := created.StructuredContent["path"].(string)
	if !testutil.Exists(dir) {
		t.Fatalf("new returned the path %q, which does not exist: %s", dir, created.text())
	}
	if got := c.call("path", map[string]any{"task": "feature"}).ok(t).StructuredContent["path"]; got != dir {
		t.Fatalf("path returned %v, want %s", got, dir)
	}
	var listed []struct{ Task, Path string }
	c.call("list", map[string]any{}).ok(t).decode(t, &listed)
	if len(listed) != 1 || listed[0].Task != "feature" || listed[0].Path != dir {
		t.Fatalf("list returned %+v", listed)
	}

	s.Write(filepath.Join(dir, "feature.txt"), "the feature\n")
	committed := c.call("commit", map[string]any{"task": "feature", "message": "Add the feature"}).ok(t)
	if committed.StructuredContent["committed"] != true || s.Git(s.Repo, "log", "-1", "--format=%s", "wt/feature") != "Add the feature" {
		t.Fatalf("commit returned %s; the branch's last commit is %q", committed.text(), s.Git(s.Repo, "log", "-1", "--format=%s", "wt/feature"))
	}

	if got := c.call("sync", map[string]any{"all": true}).ok(t).text(); !strings.Contains(got, `"outcome":"up_to_date"`) {
		t.Fatalf("sync of a task on main's tip: %s", got)
	}
	// A task that does not exist has its own entry; the others sync.
	if res := c.call("sync", map[string]any{"tasks": []string{"feature", "nosuch"}}); !res.IsError ||
		!strings.Contains(res.text(), `"task":"nosuch","branch":"","base":"","outcome":"not_found"`) || !strings.Contains(res.text(), `"outcome":"up_to_date"`) {
		t.Fatalf("sync of a task and one that does not exist: %s", res.text())
	}
	if got := c.call("env", map[string]any{"task": "feature"}).ok(t).StructuredContent["WT_PATH"]; got != dir {
		t.Fatalf("env's WT_PATH is %v, want %s", got, dir)
	}

	s.Write(filepath.Join(dir, "draft.txt"), "not committed\n")
	refusedDirty(t, c.call("rm", map[string]any{"tasks": []string{"feature"}}), dir)
	forced := c.call("rm", map[string]any{"tasks": []string{"feature"}, "force": true})
	if !forced.IsError || forced.errorKind(t) != "usage" || !testutil.Exists(dir) {
		t.Fatalf("rm with force on a server started without --allow-force: %s", forced.text())
	}

	os.Remove(filepath.Join(dir, "draft.txt"))
	merged := c.call("merge", map[string]any{"task": "feature"}).ok(t)
	if s.Git(s.Repo, "show", "main:feature.txt") != "the feature" || testutil.Exists(dir) {
		t.Fatalf("merge returned %s, but main lacks the feature or the worktree is still there", merged.text())
	}
	gone := c.call("show", map[string]any{"task": "feature"})
	if !gone.IsError || gone.errorKind(t) != "not_found" {
		t.Fatalf("show of the merged task: %s", gone.text())
	}
}

func TestMCPAllowForceLetsRmDiscardWork(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	c := startMCP(t, s, "--allow-force")
	dir, _ := c.call("new", map[string]any{"task": "scratch"}).ok(t).StructuredContent["path"].(string)
	s.Write(filepath.Join(dir, "draft.txt"), "thrown away\n")
	refusedDirty(t, c.call("rm", map[string]any{"tasks": []string{"scratch"}}), dir)
	c.call("rm", map[string]any{"tasks": []string{"scratch"}, "force": true}).ok(t)
	if testutil.Exists(dir) {
		t.Fatalf("rm with force on a server started with --allow-force left %s", dir)
	}
}

func TestMCPServerStoppedMidCallRollsTheCallBack(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	started := filepath.Join(s.Home, "init-started")
	s.Git(s.Repo, "config", "wt.init", "touch "+started+"; sleep 60")
	// No client library is needed to stop a server: the protocol's lines
	// are written by hand, and the client never hangs up.
	cmd := s.Cmd(s.Repo, "mcp")
	var serr strings.Builder
	cmd.Stderr = &serr
	in, _ := startPiped(t, cmd)
	defer in.Close()
	io.WriteString(in, mcpHello+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"new","arguments":{"task":"slow"}}}
`)
	waitFor(t, func() bool { return testutil.Exists(started) })
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("the server stopped by SIGTERM exited %d", code)
	}
	if records := s.Git(s.Repo, "for-each-ref", "refs/git-wt/tasks/"); records != "" || consistent(t, s) != 0 {
		t.Fatalf("the call's new was not rolled back: %s\nthe server said: %s", records, serr.String())
	}
}

// mcpHello is what a client says first: initialize (id 1), then
// initialized.
const mcpHello = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// startPiped starts cmd with a pipe to its stdin and one from its stdout.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, bufio.NewReader(out)
}

// refusedDirty checks an rm of one dirty task: an error result holding
// rm's per-task document, of kind dirty, and the worktree still there.
func refusedDirty(t *testing.T, res mcpResult, dir string) {
	t.Helper()
	var removals []struct {
		WorktreeOutcome string `json:"worktree_outcome"`
		Error           struct{ Kind string }
	}
	res.decode(t, &removals)
	if !res.IsError || len(removals) != 1 || removals[0].Error.Kind != "dirty" || !testutil.Exists(dir) {
		t.Fatalf("rm of a dirty task: %s; the worktree exists: %v", res.text(), testutil.Exists(dir))
	}
}

// mcpClient is the TypeScript SDK's client, talking to git wt mcp, driven
// one tool call at a time.
type mcpClient struct {
	t       *testing.T
	schemas map[string]*jsonschema.Schema
	in      io.Writer
	out     *bufio.Reader
	log     *bytes.Buffer
	tools   []struct{ Name string }
}

// mcpResult is a tool's result as the client received it.
type mcpResult struct {
	Content           []struct{ Type, Text string }
	StructuredContent map[string]any
	IsError           bool
}

// startMCP starts the client, which spawns `git-wt mcp args...` in the
// sandbox's repository, and reads the server's tools.
func startMCP(t *testing.T, s *testutil.Sandbox, args ...string) *mcpClient {
	t.Helper()
	script := mcpClientScript(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, "node", append([]string{script, filepath.Join(testutil.BinDir(t), "git-wt"), "mcp"}, args...)...)
	cmd.Dir, cmd.Env = s.Repo, s.Env
	c := &mcpClient{t: t, schemas: loadSchemas(t), log: &bytes.Buffer{}}
	cmd.Stderr = c.log
	in, out := startPiped(t, cmd)
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil && !t.Failed() {
			t.Errorf("the MCP client ended with %v:\n%s", err, c.log)
		}
		cancel()
	})
	c.in, c.out = in, out
	c.readLine(&c.tools)
	return c
}

// call calls a tool and returns its result, which must be the command's
// document, or the error document.
func (c *mcpClient) call(name string, args map[string]any) mcpResult {
	c.t.Helper()
	line, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatalf("calling %s: %v\n%s", name, err, c.log)
	}
	var res mcpResult
	c.readLine(&res)
	schema := toolSchemas[name]
	if res.IsError && strings.HasPrefix(res.text(), `{"error":`) {
		schema = "error"
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(res.text()))
	if err == nil {
		err = c.schemas[schema].Validate(doc)
	}
	if err != nil {
		c.t.Errorf("%s returned what %s.schema.json does not allow: %v\n%s", name, schema, err, res.text())
	}
	return res
}

// toolSchemas name the schema of each tool's document in docs/schema.
var toolSchemas = map[string]string{
	"new": "record", "list": "list", "show": "task", "path": "path", "env": "env",
	"commit": "commit", "rm": "rm", "merge": "merge", "sync": "sync",
}

// readLine decodes the client's next line of output into v.
func (c *mcpClient) readLine(v any) {
	c.t.Helper()
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("the MCP client printed no answer (%v); its messages:\n%s", err, c.log)
	}
	if err := json.Unmarshal(line, v); err != nil {
		c.t.Fatalf("the MCP client printed %q: %v", line, err)
	}
}

// ok fails the test when the result is an error.
func (r mcpResult) ok(t *testing.T) mcpResult {
	t.Helper()
	if r.IsError {
		t.Fatalf("the tool failed: %s", r.text())
	}
	return r
}

func (r mcpResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// decode reads the result's text, the command's JSON document, into v.
func (r mcpResult) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.text()), v); err != nil {
		t.Fatalf("the result is not the JSON expected (%v): %s", err, r.text())
	}
}

// errorKind is the kind of the result's {"error": ...} document.
func (r mcpResult) errorKind(t *testing.T) string {
	t.Helper()
	var doc struct{ Error struct{ Kind string } }
	r.decode(t, &doc)
	return doc.Error.Kind
}

// mcpClientScript returns the client script, in a folder of the test's
// whose node_modules holds the SDK.
func mcpClientScript(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(mcpSDK(t), "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mcpSDK returns a folder with the TypeScript SDK installed (npmPackage).
// It skips the test when node or npm is missing.
func mcpSDK(t *testing.T) string {
	t.Helper()
	return npmPackage(t, "@modelcontextprotocol/sdk", mcpSDKVersion, "the MCP tests need Node.js and npm to run the official TypeScript MCP client (make test-deps installs them)")
}

// npmPackage returns a folder with the npm package pkg@version installed,
// installing it the first time into the user's cache, where later runs
// find it. It skips the test, saying why it needs them, when node or npm
// is missing.
func npmPackage(t *testing.T, pkg, version, why string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %s", tool, why)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "git-wt-test", strings.NewReplacer("@", "", "/", "-").Replace(pkg)+"-"+version)
	if testutil.Exists(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")) {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// Installed beside the cache and renamed into it: a test process that
	// installs at the same time, or is killed, never leaves a half install
	// where the next run would take it for whole.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	npm := exec.Command("npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", pkg+"@"+version)
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	// ErrExist (EEXIST, ENOTEMPTY): another test process installed it first.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	return dir
}

// A call whose dir does not exist says so: it is not the binary that is
// missing.
func TestMCPCallInAMissingDirSaysTheDirIsMissing(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	cmd := s.Cmd(s.Repo, "mcp")
	in, out := startPiped(t, cmd)
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	missing := filepath.Join(s.Home, "gone")
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "list", "arguments": map[string]any{"dir": missing}}})
	io.WriteString(in, mcpHello+string(call)+"\n")
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		var msg struct {
			ID     int
			Result mcpResult
		}
		if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		text := msg.Result.text()
		if !msg.Result.IsError || !strings.Contains(text, missing) || !strings.Contains(text, "does not exist") || strings.Contains(text, "git-wt:") || strings.Contains(text, testutil.BinDir(t)) {
			t.Fatalf("a call in a missing dir: %s", text)
		}
		if kind := msg.Result.errorKind(t); kind != "usage" {
			t.Fatalf("a call in a missing dir is of kind %s: %s", kind, text)
		}
		return
	}
	t.Fatal("the server never answered the call")
}

// TestMCPWithoutItsServerSaysWhatIsMissing: a git-wt copied alone (no
// git-wt-mcp beside it or on PATH) fails git wt mcp with exit 1 and a
// line naming the missing binary, and prints nothing on stdout, which
// belongs to the client.
func TestMCPWithoutItsServerSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	alone := t.TempDir()
	// A hard link, not a copy: a copy's write descriptor can leak into a
	// child that a parallel test forks meanwhile, and exec then fails
	// with "text file busy" (golang/go#22315). Both dirs are under
	// os.TempDir, so one file system.
	if err := os.Link(filepath.Join(testutil.BinDir(t), "git-wt"), filepath.Join(alone, "git-wt")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(alone, "git-wt"), "mcp")
	cmd.Dir = s.Repo
	cmd.Env = replaceEnv(s.Env, "PATH", "/usr/bin:/bin")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("git wt mcp without git-wt-mcp: %v, want exit 1; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "needs git-wt-mcp") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q does not say in one line that git-wt-mcp is missing", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}
