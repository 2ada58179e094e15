package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// Adopt gives a worktree that git-wt did not make a record (state
// adopted), so that list, gc and the hooks treat it as a task. Its task id
// is its branch (a record names a branch: a detached worktree is not
// adopted); its base is the main worktree's branch, and baseSHA where the
// task started: the commit git checked out (post-checkout), or "" for the
// worktree's merge base with the base (doctor --fix, long after).
func (m *Handler) Adopt(ctx context.Context, wt git.Worktree, baseSHA, reason string) (*record.Entry, error) {
	branch, ok := strings.CutPrefix(wt.Branch, "refs/heads/")
	if !ok {
		return nil, fmt.Errorf("%s has a detached HEAD: git-wt adopts worktrees on a branch only", wt.Path)
	}
	b, err := m.ResolveBase(ctx, "")
	if err != nil {
		return nil, err
	}
	if baseSHA == "" {
		baseSHA = b.SHA
		if mb, err := m.Git.History().MergeBase(ctx, m.Repo.MainDir, b.SHA, wt.Head); err == nil {
			baseSHA = mb
		}
	}
	now := time.Now().UTC()
	rec := &record.Record{
		Task: branch, Branch: branch, Path: wt.Path, Base: b.Name(), BaseSHA: baseSHA,
		State: record.Adopted, CreatedAt: now, LastAccessAt: now, Locked: wt.Locked, LockReason: wt.LockReason,
	}
	rec.SetBranchCreated(false) // the worktree's maker made its branch
	rec.Stamp(task.Self())
	// Under the task's slug or, if another task has that, its suffixed one.
	for _, name := range slug.Candidates(rec.Task) {
		rec.Slug = name
		oid, err := m.Store.Create(ctx, rec)
		if errors.Is(err, git.ErrStale) {
			continue
		}
		if err != nil {
			return nil, err
		}
		m.LogEvent(rec, "adopted", reason)
		return &record.Entry{Slug: name, OID: oid, Record: rec}, nil
	}
	return nil, fmt.Errorf("cannot adopt %s: both of its names are taken by other tasks", wt.Path)
}
