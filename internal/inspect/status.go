package inspect

import (
	"context"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// DirtyCount counts the changes that make a worktree dirty (SPEC §7):
// staged changes, unstaged changes to tracked files, untracked files that
// are not ignored, and dirty submodules. The options are explicit so that
// the user's status.* settings (which can hide untracked files) do not
// count. If git status fails, the caller must treat the worktree as dirty.
func (m *Inspector) DirtyCount(ctx context.Context, path string) (int, error) {
	st, err := readStatus(ctx, m.Git, path, nil, false)
	return st.dirty, err
}

// DirtyCountRefreshing is DirtyCount that, when no process works in the
// worktree (proc.UsersOf sees none, the caller's shell included), also
// writes the refreshed stat data back to the index
// (git.StatusOptions.Refresh), as a plain git status does: the git
// commands that follow (rm's second look, sync's read-tree) then do not
// read again every file checked out in the second the index was written.
// Where a process works, or its users cannot be seen, it is DirtyCount:
// git-wt never takes the index lock from under someone (their git add
// would fail on it).
func (m *Inspector) DirtyCountRefreshing(ctx context.Context, path string) (int, error) {
	users, err := proc.UsersOf(path)
	st, err := readStatus(ctx, m.Git, path, nil, err == nil && len(users) == 0)
	return st.dirty, err
}

// worktreeStatus is what one `git status` says of a task's worktree.
type worktreeStatus struct {
	dirty         int
	ahead, behind int
	hasAB         bool   // ahead and behind were read
	tip           string // the commit of the task's branch, when it is checked out
	head, branch  string // what is checked out: a commit id, and a branch ("" when detached)
}

// worktree is what git's worktree list would say of the worktree at path,
// from its status and its lock file.
func (st worktreeStatus) worktree(path string) *git.Worktree {
	wt := &git.Worktree{Path: path, Head: st.head, Detached: st.branch == ""}
	if st.branch != "" {
		wt.Branch = "refs/heads/" + st.branch
	}
	wt.Locked, wt.LockReason = git.WorktreeLock(path)
	return wt
}

// readStatus runs git status in the worktree at path. Given the task's
// record (and a base that is a ref), the same process also counts the
// commits ahead of and behind the base, which saves a rev-list per task in
// list.
func readStatus(ctx context.Context, g *git.Runner, path string, rec *record.Record, refresh bool) (worktreeStatus, error) {
	o := git.StatusOptions{Branch: true, Refresh: refresh}
	if rec != nil && rec.Branch != "" && strings.HasPrefix(baseRev(rec), "refs/") {
		o.CountBranch, o.CountBase = rec.Branch, baseRev(rec)
	}
	gs, err := g.Status(ctx, path, o)
	if err != nil {
		return worktreeStatus{}, err
	}
	st := worktreeStatus{dirty: len(gs.Entries), branch: gs.Branch,
		ahead: gs.Ahead, behind: gs.Behind, hasAB: gs.HasAheadBehind}
	if gs.OID != "(initial)" {
		st.head = gs.OID
	}
	if rec != nil && gs.Branch != "" && gs.Branch == rec.Branch {
		st.tip = gs.OID
	}
	return st, nil
}

// AheadBehind counts the commits of branch that base lacks (ahead) and
// those of base that branch lacks (behind).
func (m *Inspector) AheadBehind(ctx context.Context, branch, base string) (ahead, behind int, err error) {
	return m.Git.AheadBehind(ctx, m.Repo.MainDir, base, task.BranchRef(branch))
}

// Brief is what a status line shows of a worktree: the branch checked
// out, the changed paths, and with a task's record the commits ahead of
// and behind its base (HasAheadBehind), all from one git status.
type Brief struct {
	Branch         string
	Dirty          int
	HasAheadBehind bool
	Ahead, Behind  int
}

// BriefOf runs the one git status of Brief in the worktree at path; rec
// is the task's record, or nil.
func (m *Inspector) BriefOf(ctx context.Context, path string, rec *record.Record) (Brief, error) {
	st, err := readStatus(ctx, m.Git, path, rec, false)
	return Brief{Branch: st.branch, Dirty: st.dirty, HasAheadBehind: st.hasAB, Ahead: st.ahead, Behind: st.behind}, err
}
