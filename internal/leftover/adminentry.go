package leftover

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/task"
)

// BrokenAdminEntry is a linked worktree's admin entry whose commondir
// file a git worktree add, killed as it wrote it, left empty: every git
// worktree command of the repository then fails ("failed to read
// .../commondir"), so git-wt reads the files itself to find it.
const BrokenAdminEntry task.Kind = "broken-admin-entry"

// BrokenAdminEntries finds the admin entries with an empty commondir.
// git writes "../.." there for every linked worktree (its admin dir is
// <common dir>/worktrees/<name>), so the fix writes that again.
func (m *Sweeper) BrokenAdminEntries() []*task.Problem {
	root := filepath.Join(m.Repo.CommonDir, "worktrees")
	dirs, _ := os.ReadDir(root)
	var problems []*task.Problem
	for _, d := range dirs {
		file := filepath.Join(root, d.Name(), "commondir")
		if st, err := os.Lstat(file); err != nil || !st.Mode().IsRegular() || st.Size() != 0 {
			continue
		}
		problems = append(problems, &task.Problem{Kind: BrokenAdminEntry, Path: filepath.Dir(file), Age: -1,
			Detail: "a git worktree add that was killed left its commondir file empty: every git worktree command fails until it is repaired",
			Fix:    "write ../.. into its commondir, as git does",
			FixWith: func(context.Context, bool) error {
				if st, err := os.Lstat(file); err != nil || st.Size() != 0 {
					return nil // repaired meanwhile
				}
				return os.WriteFile(file, []byte("../..\n"), 0o666)
			}})
	}
	return problems
}
