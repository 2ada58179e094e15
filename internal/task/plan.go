package task

import (
	"context"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
)

// Base is the commit a new task starts from and the ref it merges back to.
type Base struct {
	Ref string // full ref name ("refs/heads/main"), or "" for a bare commit
	SHA string // where the task's branch starts
	// Since is the commit of the base the task's own commits follow (the
	// record's base_sha), when it is not SHA: a runner's task started at
	// a commit its base branch does not hold owns the commits between
	// their merge base and that commit.
	Since string
}

// SyncedWith is what the record stores as base_sha.
func (b Base) SyncedWith() string {
	if b.Since != "" {
		return b.Since
	}
	return b.SHA
}

// Name is what the record stores as the base: the ref, else the commit.
func (b Base) Name() string {
	if b.Ref != "" {
		return b.Ref
	}
	return b.SHA
}

// ResolveBase resolves --base, or by default the branch checked out in the
// main worktree (its commit when HEAD is detached), with one rev-parse.
func (m *Manager) ResolveBase(ctx context.Context, rev string) (Base, error) {
	dir := m.Repo.Toplevel
	if rev == "" {
		rev, dir = "HEAD", m.Repo.MainDir
	}
	if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return Base{}, exitcode.Usagef("invalid base %q", rev)
	}
	sha, ref, err := m.Git.History().ResolveCommit(ctx, dir, rev)
	if err == nil && sha != "" {
		return Base{SHA: sha, Ref: ref}, nil
	}
	if rev == "HEAD" && fsutil.SamePath(dir, m.Repo.MainDir) {
		return Base{}, exitcode.Failedf("the main worktree %s has no commit to start from: commit something first, or give --base", dir)
	}
	return m.taskBase(ctx, rev)
}

// taskBase is the base --base names when it is no commit: a task (id or
// slug), whose branch the new task stacks on (SPEC §14); else exit 5.
func (m *Manager) taskBase(ctx context.Context, id string) (Base, error) {
	e, err := m.byID(ctx, id)
	if err != nil {
		return Base{}, err
	}
	if e == nil || e.Record == nil {
		return Base{}, exitcode.NotFoundf("base %q is neither a commit nor a task in %s", id, m.Repo.MainDir)
	}
	b, err := m.InspectBranch(ctx, e.Record.Branch)
	if err != nil {
		return Base{}, err
	}
	if !b.Exists {
		return Base{}, exitcode.NotFoundf("the branch %s of task %q, named by --base, no longer exists", e.Record.Branch, e.Record.Task)
	}
	return Base{SHA: b.SHA, Ref: BranchRef(b.Name)}, nil
}

// CheckBranchName refuses a --branch that git would not take.
func (m *Manager) CheckBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return exitcode.Usagef("invalid branch name %q", name)
	}
	if !m.Git.History().ValidBranchName(ctx, m.Repo.MainDir, name) {
		return exitcode.Usagef("invalid branch name %q", name)
	}
	return nil
}

// BranchState is whether a branch exists and which worktree has it out.
type BranchState struct {
	Name       string // without refs/heads/
	Exists     bool
	SHA        string
	CheckedOut string // path of the worktree that has it checked out
}

// InspectBranch reads one branch with one for-each-ref.
func (m *Manager) InspectBranch(ctx context.Context, branch string) (BranchState, error) {
	all, err := m.Branches(ctx, BranchRef(branch))
	for _, b := range all {
		if b.Name == branch { // the pattern matches branches below it too
			return b, nil
		}
	}
	return BranchState{}, err
}

// Branches reads the Branches a for-each-ref pattern matches, with the
// worktree that has each checked out, in one git process.
func (m *Manager) Branches(ctx context.Context, pattern string) ([]BranchState, error) {
	out, err := m.Git.ReadWorktrees(ctx, m.Repo.MainDir, "for-each-ref",
		"--format=%(refname)%00%(objectname)%00%(worktreepath)", pattern)
	if err != nil {
		return nil, err
	}
	var all []BranchState
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "\x00"); len(f) == 3 {
			all = append(all, BranchState{Name: strings.TrimPrefix(f[0], "refs/heads/"), Exists: true, SHA: f[1], CheckedOut: f[2]})
		}
	}
	return all, nil
}
