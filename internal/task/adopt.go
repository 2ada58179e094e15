package task

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
)

// Adopt gives a worktree that git-wt did not make a record (state
// adopted), so that list, gc and the hooks treat it as a task. Its task id
// is the folder's name; its base is the main worktree's branch.
func (m *Manager) Adopt(ctx context.Context, wt git.Worktree) (*record.Entry, error) {
	b, err := m.resolveBase(ctx, "")
	if err != nil {
		return nil, err
	}
	id := filepath.Base(wt.Path)
	baseSHA := b.SHA
	if wt.Head != "" {
		if mb, err := m.Git.Run(ctx, m.Repo.Toplevel, "merge-base", b.SHA, wt.Head); err == nil {
			baseSHA = strings.TrimSpace(mb)
		}
	}
	me := proc.Self()
	now := time.Now().UTC()
	for _, name := range slug.Candidates(id) {
		rec := &record.Record{
			Task: id, Slug: name, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Path: wt.Path,
			Base: b.Name(), BaseSHA: baseSHA, State: record.Adopted,
			CreatedAt: now, LastAccessAt: now, Locked: wt.Locked, LockReason: wt.LockReason,
			CreatorPID: me.PID, CreatorHost: me.Host, CreatorStart: me.Start,
		}
		oid, err := m.Store.Create(ctx, rec)
		if errors.Is(err, git.ErrStale) {
			continue // the name is taken: try the suffixed one
		}
		if err != nil {
			return nil, err
		}
		m.logEvent(rec, "adopted", "a worktree made without git-wt")
		return &record.Entry{Slug: name, OID: oid, Record: rec}, nil
	}
	return nil, errors.New("cannot adopt " + wt.Path + ": both of its names are taken by other tasks")
}
