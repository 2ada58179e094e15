package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
)

// cancelGrace is how long a git-wt whose call was cancelled has, after
// SIGTERM, to roll back before it is killed: as long as a person would
// wait for an interrupted command.
const cancelGrace = 30 * time.Second

// runner runs git-wt for the tools, and counts the runs not finished.
type runner struct {
	exe string
	log io.Writer
	// served ends when the server is told to stop. The SDK ends a call's
	// context only when the client's stream ends, which a signal does not
	// do: the calls must end with the server too.
	served context.Context
	calls  sync.WaitGroup
}

// run runs git-wt with args in dir, its stdin empty (/dev/null), and
// makes its stdout the tool's result: an error when git-wt exited
// non-zero. An rm or sync that refused a task prints its per-task document
// and exits 3 or 1: that document is the result, marked as an error. A
// git-wt that could not start, or was killed, is an error result too, not
// a protocol error, so that the model sees it.
func (r *runner) run(ctx context.Context, dir string, args []string) *mcp.CallToolResult {
	if err := checkDir(dir); err != nil {
		return refusal(err)
	}
	r.calls.Add(1)
	defer r.calls.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.served, cancel)()
	var stdout bytes.Buffer
	// The parent-death signal of the group fires when the starting thread
	// ends: keep this goroutine on its thread until git-wt is waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := child.Cmd{Path: r.exe, Args: args, Dir: dir, Stdout: &stdout, Stderr: r.log,
		Group: true, GraceDelay: cancelGrace}.Run(ctx)
	doc := compact(stdout.Bytes())
	var failed *child.Error
	switch {
	case err == nil:
		return result(doc, false)
	case errors.As(err, &failed) && failed.ExitCode > 0:
		if !json.Valid(doc) {
			doc = errorJSON(failed.ExitCode, failed.Stderr)
		}
		return result(doc, true)
	}
	return refusal(err)
}

// checkDir refuses a call's directory that is not one (a usage error):
// the start of git-wt would fail on it with an error that names the
// binary, as if git-wt were missing. "" is the server's own directory.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return exitcode.Usagef("the directory %s does not exist: give dir as a directory inside the repository", dir)
	case err != nil:
		return exitcode.Usagef("cannot use the directory %s: %v", dir, err)
	case !st.IsDir():
		return exitcode.Usagef("%s is not a directory: give dir as a directory inside the repository", dir)
	}
	return nil
}

// compact is git-wt's JSON document without its indentation, which costs
// a model's context and tells it nothing.
func compact(stdout []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, stdout) != nil {
		return bytes.TrimSpace(stdout)
	}
	return b.Bytes()
}

// result is a tool result holding doc as text and, when it is an object,
// as structured content: MCP clients take only objects there, and list
// and rm print arrays.
func result(doc []byte, isError bool) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(doc)}}, IsError: isError}
	if bytes.HasPrefix(doc, []byte("{")) {
		res.StructuredContent = json.RawMessage(doc)
	}
	return res
}

// refusal is the result of a call the server refuses before running
// git-wt, or that git-wt could not finish, as the command line would
// report it.
func refusal(err error) *mcp.CallToolResult {
	code := exitcode.Of(err)
	return result(errorJSON(code, err.Error()), true)
}

// errorJSON is SPEC §2's error document, for a refusal of the server's
// own, or a failure git-wt printed no document for (killed, or failing
// before it read its arguments): the kind its exit code says (the command
// line's own fallback), and its last message.
func errorJSON(code int, message string) []byte {
	kind, _ := exitcode.KindOfCode(code)
	type body struct {
		Code    int           `json:"code"`
		Kind    exitcode.Kind `json:"kind"`
		Message string        `json:"message"`
	}
	doc, _ := json.Marshal(map[string]body{"error": {code, kind, strings.TrimPrefix(message, "git-wt: ")}})
	return doc
}
