package workflow

import (
	"context"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
)

// CleanupMerged is git-wt's part of the post-merge hook (SPEC §5): after a
// merge or pull into a branch, the tasks based on that branch (or on its
// upstream, which a pull has just fetched) whose branches are now merged
// are removed with their branches and records — when wt.cleanupOnMerge is
// on, and only the clean, unlocked ones that no process works in. It
// returns what happened to each merged task; the kept ones say why
// (removal.KeptDirty, KeptLocked, KeptInUse, KeptByConfig).
func (m *Flow) CleanupMerged(ctx context.Context) ([]*removal.Removal, error) {
	all, err := m.Store.All(ctx)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	into, since, err := m.mergeReceiver(ctx)
	if err != nil || len(into) == 0 {
		return nil, err
	}
	var recs []*record.Record
	byslug := map[string]*record.Entry{}
	for i := range all {
		e := &all[i]
		rec := e.Record
		if rec == nil || !into[rec.Base] {
			continue
		}
		switch rec.State {
		case record.Active, record.Adopted, record.Failed:
			recs = append(recs, rec)
			byslug[rec.Slug] = e
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	merged, err := m.MergedSet(ctx, recs, since)
	if err != nil {
		return nil, err
	}
	var results []*removal.Removal
	for _, rec := range recs {
		if !merged[rec.Slug] {
			continue
		}
		if !m.Settings.CleanupOnMerge {
			results = append(results, &removal.Removal{Task: rec.Task, Slug: rec.Slug, Path: rec.Path, Branch: rec.Branch, WorktreeOutcome: removal.KeptByConfig})
			continue
		}
		results = append(results, m.RemoveEntry(ctx, byslug[rec.Slug], removal.RemoveOptions{}))
	}
	return results, nil
}

// mergeReceiver reads which branch the merge went into (the worktree's HEAD)
// and its upstream, as the bases they are recorded as, and ORIG_HEAD, the
// commit before the merge. A detached HEAD received no branch's merge.
func (m *Flow) mergeReceiver(ctx context.Context) (into map[string]bool, since string, err error) {
	branch, upstream, ok, err := m.Git.History().CheckedOutBranch(ctx, m.Repo.MainDir)
	if err != nil || !ok {
		return nil, "", err
	}
	into = map[string]bool{branch: true}
	if upstream != "" {
		into[upstream] = true
	}
	oids, err := m.Git.ObjectIDs(ctx, m.Repo.MainDir, "ORIG_HEAD^{commit}")
	if err != nil {
		return nil, "", err
	}
	return into, oids[0], nil
}
