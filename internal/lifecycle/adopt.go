package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/setup"
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

// AdoptRunner makes the worktree this process runs in, which an agent
// runner made (Codex's app, Cursor; SPEC §16), a task set up as new sets
// one up: record (state adopted), ports, env file, copy, init. A worktree
// that is a task already is returned as it is (the runner may run its
// setup step again). A runner's worktree with a detached HEAD (Codex
// app's) gets a branch of git-wt's, named for its folder, at its HEAD:
// a record names a branch. The main worktree and git-wt's own folders
// are refused.
func (m *Handler) AdoptRunner(ctx context.Context) (*record.Entry, error) {
	if m.Repo.GitDir == m.Repo.CommonDir || m.Place.IsOwnFolder(m.Repo.Toplevel) {
		return nil, exitcode.Refusedf("%s is the main worktree or one of git-wt's own folders: only a worktree an agent runner made can be adopted", m.Repo.Toplevel)
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.Toplevel)
	if err != nil {
		return nil, err
	}
	wt := worktreeAt(wts, m.Repo.Toplevel)
	if wt == nil {
		return nil, fmt.Errorf("git does not list %s among its worktrees", m.Repo.Toplevel)
	}
	if has, err := m.hasRecord(ctx, wt); err != nil {
		return nil, err
	} else if has {
		return m.Find(ctx, wt.Path)
	}
	created := false
	if wt.Branch == "" {
		if wt.Branch, err = m.branchHere(ctx, wt); err != nil {
			return nil, err
		}
		created = true
	}
	e, err := m.Adopt(ctx, *wt, "", "made by an agent runner (git wt init --adopt)")
	if err != nil {
		return nil, err
	}
	if created {
		if err := m.Update(ctx, e, func(r *record.Record) error { r.SetBranchCreated(true); return nil }); err != nil {
			return nil, err
		}
	}
	return e, m.Setup(ctx, e, setup.Options{Copy: true, Init: true})
}

// branchHere creates a branch at the detached HEAD of wt, named for its
// folder (or the suffixed name, when that is taken), and checks it out
// without touching a file.
func (m *Handler) branchHere(ctx context.Context, wt *git.Worktree) (string, error) {
	for _, name := range slug.Candidates(filepath.Base(wt.Path)) {
		ref := "refs/heads/" + name
		err := m.Git.MoveBranch(ctx, m.Repo.MainDir, ref, wt.Head, "", "git-wt: a branch for the agent runner's detached worktree")
		if errors.Is(err, git.ErrStale) {
			continue
		}
		if err != nil {
			return "", err
		}
		return ref, m.Git.PointHead(ctx, wt.Path, ref)
	}
	return "", fmt.Errorf("cannot name a branch for %s: both of its names are taken", wt.Path)
}
