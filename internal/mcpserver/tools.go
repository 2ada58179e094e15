package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// Each tool's input mirrors its command's arguments and flags; each
// argv function turns it into the git-wt arguments that run it. They are
// pure, so that what a client can make git-wt do is tested without a
// repository. Flag values are joined to their flag ("--base=X") and the
// tasks follow "--", so that no value a client sends is read as a flag.

// Repo is the repository a tool acts on; every input has it.
type Repo struct {
	Dir string `json:"dir,omitempty" jsonschema:"the repository directory (any directory inside it); default: the directory the server was started in"`
}

func (r Repo) dir() string { return r.Dir }

// NewInput is the new tool's input.
type NewInput struct {
	Repo
	Task   string `json:"task" jsonschema:"the task id (becomes the worktree folder and the branch wt/<slug>); an existing task is resumed"`
	Base   string `json:"base,omitempty" jsonschema:"the ref or task to start from; default: the branch checked out in the main worktree"`
	Branch string `json:"branch,omitempty" jsonschema:"the branch to use (created if missing) instead of wt/<slug>"`
	Path   string `json:"path,omitempty" jsonschema:"the worktree directory, inside the base dir (relative to it)"`
	NoInit bool   `json:"no_init,omitempty" jsonschema:"do not run the repository's init command"`
}

func newArgv(in NewInput) []string {
	return withTasks(slices.Concat([]string{"new", "--json"},
		value("base", in.Base), value("branch", in.Branch), value("path", in.Path), when("no-init", in.NoInit)), in.Task)
}

// ListInput is the list tool's input.
type ListInput struct {
	Repo
	NoStatus bool `json:"no_status,omitempty" jsonschema:"skip git status (dirty, ahead/behind, merged): faster"`
	All      bool `json:"all,omitempty" jsonschema:"also list the main worktree and worktrees git-wt did not make"`
}

func listArgv(in ListInput) []string {
	return slices.Concat([]string{"list", "--json"}, when("no-status", in.NoStatus), when("all", in.All))
}

// TaskInput is the input of the tools that read one task: show, path, env.
type TaskInput struct {
	Repo
	Task string `json:"task" jsonschema:"the task: its id, slug, branch or worktree path"`
}

func showArgv(in TaskInput) []string { return withTasks([]string{"show", "--json"}, in.Task) }

func pathArgv(in TaskInput) []string { return withTasks([]string{"path", "--json"}, in.Task) }

func envArgv(in TaskInput) []string { return withTasks([]string{"env", "--json"}, in.Task) }

// CommitInput is the commit tool's input.
type CommitInput struct {
	Repo
	Task    string `json:"task" jsonschema:"the task whose worktree is committed"`
	Message string `json:"message" jsonschema:"the commit message"`
}

func commitArgv(in CommitInput) []string {
	return withTasks([]string{"commit", "--json", "--message=" + in.Message}, in.Task)
}

// RmInput is the rm tool's input.
type RmInput struct {
	Repo
	Tasks      []string `json:"tasks" jsonschema:"the tasks to remove; each is handled on its own"`
	KeepBranch bool     `json:"keep_branch,omitempty" jsonschema:"keep the task's branch"`
	DryRun     bool     `json:"dry_run,omitempty" jsonschema:"say what would be removed and remove nothing"`
	// IgnoreInUse keeps every protection but the in-use check.
	IgnoreInUse bool `json:"ignore_in_use,omitempty" jsonschema:"skip only the check for processes working in the worktree, for an agent in a sandbox that cannot see them; dirty, locked and unmerged work is still kept"`
	Force       bool `json:"force,omitempty" jsonschema:"discard uncommitted changes, ignore locks and use, delete unmerged branches; refused unless the server was started with --allow-force"`
}

// rmArgv refuses force unless the person who started the server allowed
// it: an agent must not be able to discard work by asking.
func rmArgv(in RmInput, allowForce bool) ([]string, error) {
	if in.Force && !allowForce {
		return nil, exitcode.Usagef("force is refused: this server was started without --allow-force (git wt mcp --allow-force); commit or remove the changes instead")
	}
	return withTasks(slices.Concat([]string{"rm", "--json"},
		when("keep-branch", in.KeepBranch), when("dry-run", in.DryRun), when("ignore-in-use", in.IgnoreInUse), when("force", in.Force)), in.Tasks...), nil
}

// MergeInput is the merge tool's input.
type MergeInput struct {
	Repo
	Task    string    `json:"task" jsonschema:"the task whose branch is merged"`
	Into    string    `json:"into,omitempty" jsonschema:"the branch to merge into; default: the task's base"`
	Mode    MergeMode `json:"mode,omitempty" jsonschema:"how to merge; default: fast-forward when possible, else a merge commit"`
	Message string    `json:"message,omitempty" jsonschema:"the merge or squash commit's message"`
	Keep    bool      `json:"keep,omitempty" jsonschema:"keep the task's worktree, branch and record after the merge"`
}

// MergeMode and SyncMode are the ways merge and sync work: each is its
// command's flag of the same name. Their schemas list them (typeSchemas).
type (
	MergeMode string
	SyncMode  string
)

var (
	mergeModes = []string{"ff-only", "no-ff", "squash", "rebase"}
	syncModes  = []string{"rebase", "merge"}
)

func mergeArgv(in MergeInput) ([]string, error) {
	mode, err := modeFlag(string(in.Mode), mergeModes)
	if err != nil {
		return nil, err
	}
	return withTasks(slices.Concat([]string{"merge", "--json"},
		value("into", in.Into), mode, value("message", in.Message), when("keep", in.Keep)), in.Task), nil
}

// SyncInput is the sync tool's input.
type SyncInput struct {
	Repo
	Tasks  []string `json:"tasks,omitempty" jsonschema:"the tasks to bring up to date with their bases (or set all)"`
	All    bool     `json:"all,omitempty" jsonschema:"sync every task"`
	Mode   SyncMode `json:"mode,omitempty" jsonschema:"rebase the task's commits onto the base, or merge the base into the task; default: as configured"`
	DryRun bool     `json:"dry_run,omitempty" jsonschema:"say what each task would do and change nothing"`
	Fetch  bool     `json:"fetch,omitempty" jsonschema:"fetch first, where a base is a remote-tracking branch"`
}

func syncArgv(in SyncInput) ([]string, error) {
	mode, err := modeFlag(string(in.Mode), syncModes)
	if err != nil {
		return nil, err
	}
	return withTasks(slices.Concat([]string{"sync", "--json"},
		when("all", in.All), mode, when("dry-run", in.DryRun), when("fetch", in.Fetch)), in.Tasks...), nil
}

// modeFlag is the flag of a mode among modes ("" is none). The schema
// already restricts the mode; checking again here keeps a mode from
// becoming any other flag ("--force") whatever validated the input.
func modeFlag(mode string, modes []string) ([]string, error) {
	if mode == "" {
		return nil, nil
	}
	if !slices.Contains(modes, mode) {
		return nil, exitcode.Usagef("mode %q is not one of %s", mode, strings.Join(modes, ", "))
	}
	return []string{"--" + mode}, nil
}

// value is the flag --name=v, or nothing when v is empty.
func value(name, v string) []string {
	if v == "" {
		return nil
	}
	return []string{fmt.Sprintf("--%s=%s", name, v)}
}

// when is the flag --name when on.
func when(name string, on bool) []string {
	if !on {
		return nil
	}
	return []string{"--" + name}
}

// withTasks ends the flags and appends the tasks, so that a task named
// like a flag stays a task.
func withTasks(argv []string, tasks ...string) []string {
	return append(append(argv, "--"), tasks...)
}
