package inspect

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/git"
)

// SubmoduleOnlyCommits counts the commits made in the submodules of the
// worktree at dir (recursively) that exist nowhere else (SPEC §17): on no
// remote-tracking ref of the task's module repository, and not in the
// main worktree's module repository it was cloned from. Removing the
// task deletes its module repositories, and those commits with them.
func (m *Inspector) SubmoduleOnlyCommits(ctx context.Context, dir string) (int, error) {
	return m.onlyCommitsIn(ctx, dir, m.Repo.CommonDir)
}

func (m *Inspector) onlyCommitsIn(ctx context.Context, dir, mainGit string) (int, error) {
	gitmodules := filepath.Join(dir, ".gitmodules")
	if _, err := os.Lstat(gitmodules); err != nil {
		return 0, nil
	}
	subs := m.Git.Submodules()
	paths, err := subs.Keys(ctx, dir, gitmodules, "path")
	if err != nil {
		return 0, err
	}
	n := 0
	for name, path := range paths {
		sub := filepath.Join(dir, path)
		if _, err := os.Lstat(filepath.Join(sub, ".git")); err != nil {
			continue // not initialised in the task: nothing of its own
		}
		local, err := subs.LocalCommits(ctx, sub)
		if err != nil {
			return 0, err
		}
		// A name git-wt refuses has no store to compare with: every
		// commit of its own counts.
		from := git.ModuleStore(mainGit, name)
		missing := local
		if from != "" {
			if missing, err = subs.Missing(ctx, from, local); err != nil {
				return 0, err
			}
		}
		below, err := m.onlyCommitsIn(ctx, sub, from)
		if err != nil {
			return 0, err
		}
		n += len(missing) + below
	}
	return n, nil
}
