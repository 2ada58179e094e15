package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// taskView is a task as `list --json` and `show --json` print it: the
// whole record plus what is live. Live fields that were not computed are
// left out rather than shown as zero.
type taskView struct {
	*record.Record
	LastAccessAt  time.Time `json:"last_access_at"`
	Exists        bool      `json:"exists"`
	Head          string    `json:"head,omitempty"`
	CheckedOut    string    `json:"checked_out_branch,omitempty"`
	Dirty         *int      `json:"dirty,omitempty"`
	Ahead         *int      `json:"ahead,omitempty"`
	Behind        *int      `json:"behind,omitempty"`
	Merged        *bool     `json:"merged,omitempty"`
	Stale         *bool     `json:"stale,omitempty"` // behind more than wt.staleAfter
	SizeBytes     *int64    `json:"size_bytes,omitempty"`
	Reclaimable   *int64    `json:"reclaimable_bytes,omitempty"` // its build output, which gc --reclaim would free
	Unmanaged     bool      `json:"unmanaged,omitempty"`
	RecordError   string    `json:"record_error,omitempty"`
	StatusError   string    `json:"status_error,omitempty"`
	GitLocked     bool      `json:"git_locked,omitempty"`
	GitLockReason string    `json:"git_lock_reason,omitempty"`
	// Agent shadows the record's own, to add whether its runner is gone.
	Agent *agentView `json:"agent,omitempty"`

	// list --all's survey (SPEC §20): who made the worktree, what it
	// holds, and the verdict.
	MadeBy       string     `json:"made_by,omitempty"`
	Verdict      string     `json:"verdict,omitempty"`
	Unpushed     *int       `json:"unpushed,omitempty"`
	LastActivity *time.Time `json:"last_activity,omitempty"`
	InUse        string     `json:"in_use,omitempty"`
}

// agentView is the record's agent, and gone when its runner's process is
// proven dead (never when that is unknown: SPEC §15).
type agentView struct {
	*record.Agent
	Gone bool `json:"gone,omitempty"`
}

func newAgentView(a *record.Agent) *agentView {
	if a == nil {
		return nil
	}
	v := &agentView{Agent: a}
	if a.PID > 0 && a.State != agents.Ended {
		id := proc.ID{PID: a.PID, Host: a.PIDHost, Boot: a.PIDBoot, PIDNS: a.PIDNS, Start: a.PIDStart}
		v.Gone = proc.Check(id) == proc.Dead
	}
	return v
}

func newTaskView(l *inspect.Live, o inspect.LiveOptions, staleAfter int) taskView {
	v := taskView{Record: l.Entry.Record, LastAccessAt: l.LastAccess, Exists: l.Exists}
	if l.Entry.Record != nil {
		v.Agent = newAgentView(l.Entry.Record.Agent)
	}
	if l.Entry.Err != nil {
		v.Record = &record.Record{Slug: l.Entry.Slug}
		v.RecordError = l.Entry.Err.Error()
		return v
	}
	if wt := l.Worktree; wt != nil {
		v.Head = wt.Head
		v.CheckedOut = strings.TrimPrefix(wt.Branch, "refs/heads/")
		v.GitLocked, v.GitLockReason = wt.Locked, wt.LockReason
	}
	if o.Status && l.Exists {
		stale := l.Behind > staleAfter
		v.Dirty, v.Ahead, v.Behind, v.Merged, v.Stale = &l.Dirty, &l.Ahead, &l.Behind, &l.Merged, &stale
		if l.StatusErr != nil {
			v.StatusError = l.StatusErr.Error()
		}
	}
	if o.Size {
		v.SizeBytes = &l.Size
		if l.Exists {
			v.Reclaimable = &l.Reclaimable
		}
	}
	return v
}

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// oneArg returns the one argument a command takes, or a usage error.
func oneArg(c *cli.Context, what string) (string, error) {
	if c.NArg() != 1 {
		return "", exitcode.Usagef("git wt %s takes exactly one %s (see git wt %s -h)", c.Command.Name, what, c.Command.Name)
	}
	return c.Args().First(), nil
}

// jsonFlag is the --json flag of the commands that print data.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON document"}

// nonNil is list, or an empty one: --json prints [] for nothing, never
// null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// printResult prints doc as the JSON document with --json, else the
// plain line (none when plain is "").
func (e *env) printResult(c *cli.Context, doc any, plain string) error {
	if c.Bool("json") {
		return writeJSON(e.stdout, doc)
	}
	if plain == "" {
		return nil
	}
	_, err := fmt.Fprintln(e.stdout, plain) // terminal: a path or a command line for scripts (cd "$(git wt path T)"), as it is
	return err
}

// noArgs is the usage error of a command that takes no arguments.
func noArgs(c *cli.Context) error {
	return exitcode.Usagef("git wt %s takes no arguments (see git wt %s -h)", c.Command.Name, c.Command.Name)
}
