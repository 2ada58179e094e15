package leftover

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
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

// UnlistedAdminEntry is an admin entry git lists no worktree for (its
// gitdir file missing or empty): what a git worktree remove killed as it
// deleted the entry left, or a git that wrote its index.lock into the
// entry as the removal deleted it. git-wt runs no git worktree prune,
// which would drop it with every other prunable entry.
const UnlistedAdminEntry task.Kind = "unlisted-admin-entry"

// unlistedSettled is how long an unlisted entry must be unchanged to be
// debris (git.Unlisted): a plain git makes or moves a worktree in far
// less.
const unlistedSettled = 2 * time.Second

// UnlistedAdminEntries finds the admin entries git lists no worktree for
// that no folder of folders() (the tasks' and the pool entries', read
// only when there are such entries) names in its .git file: one a folder
// names is that task's to repair. One that could still serve a worktree
// (git.Serviceable) is reported for a person: a plain git worktree may
// use it, with staged work in its index, and git-wt removes nothing it
// did not make. The rest, emptied by a removal, --fix deletes.
func (m *Sweeper) UnlistedAdminEntries(folders func() []string) []*task.Problem {
	unlisted := git.UnlistedEntries(m.Repo.CommonDir, unlistedSettled)
	if len(unlisted) == 0 {
		return nil
	}
	named := map[string]bool{}
	for _, dir := range folders() {
		if _, admin, err := git.AdminDir(dir); err == nil {
			named[fsutil.PathKey(admin)] = true
		}
	}
	var problems []*task.Problem
	for _, admin := range unlisted {
		if named[fsutil.PathKey(admin)] {
			continue
		}
		p := &task.Problem{Kind: UnlistedAdminEntry, Path: admin, Age: -1,
			Detail: "git's admin entry names no worktree (its gitdir file is missing or empty), and holds no HEAD or commondir: a removal that was stopped left it",
			Fix:    "delete it, as git worktree prune does",
			FixWith: func(ctx context.Context, _ bool) error {
				return m.dropUnlisted(ctx, admin)
			}}
		if git.Serviceable(admin) {
			p.Fix, p.FixWith = "", nil
			p.Detail = "git's admin entry names no worktree (its gitdir file is missing or empty), yet a worktree may still use it (a plain git worktree whose gitdir went, a git worktree move that was stopped): run git worktree repair in that worktree, or, if none uses it, delete the entry (git worktree prune)"
		}
		problems = append(problems, p)
	}
	return problems
}

// dropUnlisted deletes the unlisted admin entry admin if it is still so,
// and still serves no worktree, under the repository lock, under which
// git-wt adds and moves worktrees; through an os.Root of the common dir,
// so that a worktrees folder an agent swapped for a link since leads the
// deletion nowhere outside.
func (m *Sweeper) dropUnlisted(ctx context.Context, admin string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if git.AdminEntriesLinked(m.Repo.CommonDir) || !git.Unlisted(admin, unlistedSettled) || git.Serviceable(admin) {
		return nil
	}
	return git.DropAdminEntry(m.Repo.CommonDir, admin)
}
