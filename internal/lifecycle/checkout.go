package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/hooks"
	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// DetachedNote says why a worktree with a detached HEAD gets no record and
// no init (the hook shim says the same in sh).
func DetachedNote(path string) string {
	return path + " has a detached HEAD: git-wt gives records to worktrees on a branch only, so it runs no init there (git wt new makes one)"
}

// AdoptCheckout is git-wt's part of the post-checkout hook in a worktree
// that plain git has just made (`git worktree add`; SPEC §5): unless the
// worktree has a record already (git wt new made it, or it was set up
// before), it gets one, in state adopted, and is set up (copy, init) once.
// A clone or the main worktree (git dir = common dir) and a detached
// worktree (a record names a branch) are left alone.
func (m *Handler) AdoptCheckout(ctx context.Context, head string) error {
	if m.Repo.GitDir == m.Repo.CommonDir || m.Place.IsOwnFolder(m.Repo.Toplevel) {
		return nil // a clone, the main worktree, or a pool entry or the trash: git-wt's own
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.Toplevel)
	if err != nil {
		return err
	}
	wt := worktreeAt(wts, m.Repo.Toplevel)
	if wt == nil {
		return fmt.Errorf("git does not list %s among its worktrees", m.Repo.Toplevel)
	}
	if has, err := m.hasRecord(ctx, wt); err != nil || has {
		return err
	}
	if wt.Branch == "" {
		m.Warn("%s", DetachedNote(wt.Path))
		return nil
	}
	e, err := m.Adopt(ctx, *wt, head, "made by git worktree add")
	if err != nil {
		return err
	}
	return m.Setup(ctx, e, setup.Options{Copy: true, Init: true})
}

// hasRecord tells whether the worktree has a record already, with one
// read of the few names it can have one under: its folder's name (git wt
// new puts a task at <base dir>/<slug>) and the slugs of its branch (an
// adopted worktree's task id is its branch). No scan of every record: the
// hook runs on every git worktree add.
func (m *Handler) hasRecord(ctx context.Context, wt *git.Worktree) (bool, error) {
	names := []string{slug.Make(filepath.Base(wt.Path))}
	if branch, ok := strings.CutPrefix(wt.Branch, "refs/heads/"); ok {
		for _, c := range slug.Candidates(branch) {
			if c != names[0] {
				names = append(names, c)
			}
		}
	}
	entries, err := m.Store.Get(ctx, names...)
	for _, e := range entries {
		if e.Record != nil && (fsutil.SamePath(e.Record.Path, wt.Path) || fsutil.SamePath(e.Record.Path, m.Repo.Toplevel)) {
			return true, err
		}
	}
	return false, err
}

// worktreeAt finds git's entry for the worktree at dir (a resolved path),
// also when git knows it by a path through a symlink.
func worktreeAt(wts []git.Worktree, dir string) *git.Worktree {
	if wt := task.FindWorktree(wts, dir); wt != nil {
		return wt
	}
	for i := range wts {
		if real, err := filepath.EvalSymlinks(wts[i].Path); err == nil && real == dir {
			return &wts[i]
		}
	}
	return nil
}

// runCheckoutHook runs the post-checkout hook in a worktree that new made,
// as `git worktree add` would have (new adds with --no-checkout, which
// runs no hook): previous HEAD all zeros, the new HEAD, flag 1, in the
// worktree. git-wt's mark is set, so an installed git-wt hook leaves its
// own part out (new did that work) and only runs the hook it chains (and
// is not run at all when it chains none). A
// hook that fails is warned about; the worktree stays, as with git.
func (m *Handler) runCheckoutHook(ctx context.Context, rec *record.Record) {
	hook := filepath.Join(m.Repo.HooksDir, "post-checkout")
	if st, err := os.Stat(hook); err != nil || st.IsDir() || !fsutil.Executable(hook) || !hooks.RunsUnderGitWt(hook) {
		return
	}
	head, err := m.Git.Index().Head(ctx, rec.Path)
	if err != nil {
		m.Warn("did not run %s in %s: %v", hook, rec.Path, err)
		return
	}
	err = child.Cmd{Path: hook, Args: []string{strings.Repeat("0", len(head)), head, "1"}, Dir: rec.Path,
		Env: []string{git.InternalEnv + "=1"}, Stdout: m.HookOutput, Stderr: m.HookOutput}.Run(ctx)
	var failed *child.Error
	if errors.As(err, &failed) && ctx.Err() == nil {
		m.Warn("the post-checkout hook %s failed in %s: %v", hook, rec.Path, failed.Err)
	}
}
