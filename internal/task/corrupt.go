package task

import (
	"context"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
)

// CorruptRecordProblem reports a record ref whose blob git-wt cannot read (not a
// blob, not JSON, no task, slug or path). It is no task: list, count and
// wt.maxWorktrees leave it out (SPEC §7). Only doctor --fix --force
// deletes the ref, and only if it still points where it was read; the blob
// stays in the object database until git gc.
func (m *Manager) CorruptRecordProblem(e *record.Entry) *Problem {
	ref := e.Ref()
	return &Problem{Kind: CorruptRecord, Ref: ref, Age: -1, FixDirty: true,
		Detail: e.Err.Error() + ": fix the ref by hand, or delete it (git update-ref -d " + ref + ")",
		Fix:    "delete the ref (needs --force)",
		FixWith: func(ctx context.Context, force bool) error {
			if !force {
				return exitcode.RefusedAs(exitcode.KindDirty, "%s may still hold what a person needs: use doctor --fix --force to delete it", ref)
			}
			return m.Store.DeleteEntry(ctx, e)
		}}
}
