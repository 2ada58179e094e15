// Package mcpserver serves git-wt's commands as Model Context Protocol
// tools (SPEC §13). Each tool call runs the git-wt binary itself with the
// command's arguments and --json, so that a tool returns exactly the
// document the command line prints, with the same error kinds, and keeps
// every refusal the command line makes: the server adds no second
// implementation of any command, only the refusal of force.
package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// Options configure a server.
type Options struct {
	Exe        string    // the git-wt binary each tool call runs
	Version    string    // git-wt's version, told to clients
	AllowForce bool      // git wt mcp --allow-force: rm may pass --force
	Log        io.Writer // receives git-wt's messages (stderr); nil discards them
}

// Serve answers one client on r and w until it hangs up or ctx ends (a
// client stops its server with SIGTERM: a normal end, not a failure), then
// waits for the git-wt processes still running: ending a call's context
// sends them SIGTERM, and they roll back what they had begun.
func Serve(ctx context.Context, o Options, r io.Reader, w io.Writer) error {
	s, calls := newServer(ctx, o)
	out := &lockedWriter{w: w}
	// The filter enforces the line limit, and answers what is too long.
	err := s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(newLineFilter(r, out)), Writer: out, MaxLineLength: -1})
	calls.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// newServer is the server with every tool, whose calls end with ctx, and
// the calls it has running.
func newServer(ctx context.Context, o Options) (*mcp.Server, *sync.WaitGroup) {
	s := mcp.NewServer(&mcp.Implementation{Name: "git-wt", Version: o.Version}, nil)
	r := &runner{exe: o.Exe, log: o.Log, served: ctx}
	allowForce := func(in RmInput) ([]string, error) { return rmArgv(in, o.AllowForce) }
	add(s, r, "new", "Create a task: its own branch and git worktree (or resume the task if it exists). "+
		"Returns the task's record; its path is the worktree to work in.", pure(newArgv))
	add(s, r, "list", "List the task worktrees with their state, dirty count, ahead/behind their base and whether merged.",
		pure(listArgv))
	add(s, r, "show", "Show one task's whole record and live status.", pure(showArgv))
	add(s, r, "path", "Return a task's worktree path.", pure(pathArgv))
	add(s, r, "env", "Return a task's environment: the WT_* variables and its ports.", pure(envArgv))
	add(s, r, "commit", "Stage everything in a task's worktree (git add -A) and commit it. "+
		"Returns the commit and whether one was made.", pure(commitArgv))
	add(s, r, "rm", "Remove tasks: worktree, branch (kept when it has unmerged commits) and record. "+
		"A dirty, locked or in-use task is refused and kept. Returns one entry per task.", allowForce)
	add(s, r, "merge", "Merge a task's branch into its base (or into), then remove the task unless keep. "+
		"A conflict aborts and changes nothing.", mergeArgv)
	add(s, r, "sync", "Bring task branches up to date with their bases, by rebase or merge. "+
		"Returns one entry per task.", syncArgv)
	return s, &r.calls
}

// pure is an argv function that cannot refuse its input.
func pure[In any](f func(In) []string) func(In) ([]string, error) {
	return func(in In) ([]string, error) { return f(in), nil }
}

// add registers the tool name, which runs git-wt with argv(input) in the
// input's directory.
func add[In interface{ dir() string }](s *mcp.Server, r *runner, name, description string,
	argv func(In) ([]string, error)) {
	schema := inputSchema[In]()
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(err) // the input types are fixed: a bad one fails every test
	}
	s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: schema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := decode[In](resolved, req.Params.Arguments)
			if err == nil {
				var args []string
				if args, err = argv(in); err == nil {
					return r.run(ctx, in.dir(), args), nil
				}
			}
			return refusal(err), nil
		})
}

// decode checks a call's arguments against the tool's schema and reads
// them. Bad arguments are a usage error, as a bad flag is on the command
// line: the SDK's own check would answer with bare text, not the error
// document.
func decode[In any](schema *jsonschema.Resolved, raw json.RawMessage) (In, error) {
	var in In
	if len(raw) == 0 {
		raw = json.RawMessage("{}") // a client may leave out an empty input
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return in, exitcode.Usagef("the arguments are not JSON: %v", err)
	}
	if err := schema.Validate(instance); err != nil {
		return in, exitcode.Usagef("invalid arguments: %v", err)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, exitcode.Usagef("invalid arguments: %v", err)
	}
	return in, nil
}

// inputSchema is In's schema. The tags give only descriptions: the modes'
// choices and the lists of tasks come from typeSchemas.
func inputSchema[In any]() *jsonschema.Schema {
	schema, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		panic(err) // the input types are fixed: a bad one fails every test
	}
	return schema
}

// typeSchemas are the schemas of the mode types (strings, one of their
// modes) and of a list of tasks: an array, never null as a Go slice may
// be.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	enum := func(modes []string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "string"}
		for _, m := range modes {
			s.Enum = append(s.Enum, m)
		}
		return s
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[MergeMode](): enum(mergeModes),
		reflect.TypeFor[SyncMode]():  enum(syncModes),
		reflect.TypeFor[[]string]():  {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}
}
