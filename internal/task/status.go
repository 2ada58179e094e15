package task

import (
	"context"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
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
	out, err := m.Git.Exec(ctx, git.Cmd{Dir: path, InWorktree: true, Env: readOnly, Args: []string{
		"status", "--porcelain=v1", "-z", "--no-renames",
		"--untracked-files=normal", "--ignore-submodules=none",
	}})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, entry := range strings.Split(string(out), "\x00") {
		if entry != "" {
			n++
		}
	}
	return n, nil
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
