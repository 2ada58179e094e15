package task

import (
	"context"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// readOnly is the environment for git calls that only look: git must not
// take the index lock to refresh stat data behind the user's back.
var readOnly = []string{"GIT_OPTIONAL_LOCKS=0"}

// DirtyCount counts the changes that make a worktree dirty (SPEC §7):
// staged changes, unstaged changes to tracked files, untracked files that
// are not ignored, and dirty submodules. The options are explicit so that
// the user's status.* settings (which can hide untracked files) do not
// count. If git status fails, the caller must treat the worktree as dirty.
func (m *Manager) DirtyCount(ctx context.Context, path string) (int, error) {
	st, err := readStatus(ctx, m.Git, path, nil)
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
// commits ahead of and behind the base: the base is passed as the branch's
// upstream on the command line (`-c branch.B.remote=. -c
// branch.B.merge=BASE`), which writes no config and saves a rev-list per
// task in list.
func readStatus(ctx context.Context, g *git.Runner, path string, rec *record.Record) (worktreeStatus, error) {
	var args []string
	withAB := rec != nil && rec.Branch != "" && strings.HasPrefix(baseRev(rec), "refs/")
	if withAB {
		args = append(args, "-c", "branch."+rec.Branch+".remote=.", "-c", "branch."+rec.Branch+".merge="+baseRev(rec))
	}
	// --branch says what is checked out; the commits are counted only
	// against the base passed above, never the branch's own upstream.
	args = append(args, "status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=none", "--branch")
	if withAB {
		args = append(args, "--ahead-behind")
	} else {
		args = append(args, "--no-ahead-behind")
	}
	out, err := g.Exec(ctx, git.Cmd{Dir: path, InWorktree: true, Env: readOnly, Args: args})
	if err != nil {
		return worktreeStatus{}, err
	}
	var st worktreeStatus
	head, oid := "", ""
	for _, entry := range strings.Split(string(out), "\x00") {
		switch {
		case entry == "":
		case strings.HasPrefix(entry, "# branch.oid "):
			if oid = strings.TrimPrefix(entry, "# branch.oid "); oid != "(initial)" {
				st.head = oid
			}
		case strings.HasPrefix(entry, "# branch.head "):
			head = strings.TrimPrefix(entry, "# branch.head ")
			if head != "(detached)" {
				st.branch = head
			}
			if rec != nil && head == rec.Branch {
				st.tip = oid
			}
		case withAB && strings.HasPrefix(entry, "# branch.ab "):
			// "+A -B", for the branch checked out: only ours counts.
			f := strings.Fields(strings.TrimPrefix(entry, "# branch.ab "))
			if len(f) == 2 && rec != nil && head == rec.Branch {
				st.ahead, _ = strconv.Atoi(strings.TrimPrefix(f[0], "+"))
				st.behind, _ = strconv.Atoi(strings.TrimPrefix(f[1], "-"))
				st.hasAB = true
			}
		case strings.HasPrefix(entry, "# "):
		default:
			st.dirty++
		}
	}
	return st, nil
}

// AheadBehind counts the commits of branch that base lacks (ahead) and
// those of base that branch lacks (behind).
func (m *Manager) AheadBehind(ctx context.Context, branch, base string) (ahead, behind int, err error) {
	out, err := m.Git.Exec(ctx, git.Cmd{Dir: m.Repo.MainDir, Env: readOnly, Args: []string{
		"rev-list", "--left-right", "--count", base + "..." + branchRef(branch), "--",
	}})
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, nil
	}
	behind, _ = strconv.Atoi(f[0])
	ahead, _ = strconv.Atoi(f[1])
	return ahead, behind, nil
}
