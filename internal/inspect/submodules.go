package inspect

import (
	"context"
	"os"
	"path/filepath"
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
		from := filepath.Join(mainGit, "modules", name)
		missing := local
		if st, err := os.Stat(from); err == nil && st.IsDir() {
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
