package task

import (
	"context"
	"fmt"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// A record's path proves nothing (SPEC §19): a record edited by hand can
// name ANOTHER task's worktree, which git lists and which is a linked
// worktree of this repository like any. Before git-wt removes a worktree
// for a task, or takes one over to finish a creation, it checks the
// worktree is not another task's by what the records and git say.

// OtherTasksWorktree says why the worktree at rec.Path is another task's,
// or "" when it is not: another record names the same path, or the
// worktree (wt, as git lists it; nil when git lists none there) has
// another task's branch checked out, not rec's.
func (m *Manager) OtherTasksWorktree(ctx context.Context, rec *record.Record, wt *git.Worktree) (string, error) {
	entries, err := m.Store.AllFromFiles(ctx, m.Repo.CommonDir)
	if err != nil {
		return "", err
	}
	others := make([]*record.Record, 0, len(entries))
	for i := range entries {
		others = append(others, entries[i].Record)
	}
	branch := ""
	if wt != nil {
		branch = wt.Branch
	}
	return otherOwner(rec, branch, others), nil
}

// otherOwner is the pure rule of OtherTasksWorktree: branch is the full
// ref the worktree at rec.Path has checked out ("" detached or unknown),
// records every task's (rec's own among them, skipped by its slug).
func otherOwner(rec *record.Record, branch string, records []*record.Record) string {
	for _, o := range records {
		switch {
		case o == nil || o.Slug == rec.Slug:
		case fsutil.SamePath(o.Path, rec.Path):
			return fmt.Sprintf("the record of task %q names it too", o.Task)
		case branch != "" && branch != BranchRef(rec.Branch) && branch == BranchRef(o.Branch):
			return fmt.Sprintf("it has branch %s of task %q checked out", o.Branch, o.Task)
		}
	}
	return ""
}
