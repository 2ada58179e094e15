package inspect

import (
	"context"
	"os"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// EarlyStatuses are the statuses of the worktrees of the records the
// record cache holds, asked before the refs say which records are live:
// list's statuses, nearly all its time, then start while git config and
// for-each-ref still run. A status is used only for a live record with the
// same path, branch and base; the cache's older versions of a record share
// those, so each worktree is asked once, and a folder that is gone is not
// asked at all.
type EarlyStatuses struct {
	byKey *async.Value[map[statusKey]*async.Value[worktreeStatus]]
}

type statusKey struct{ path, branch, base string }

func keyOf(rec *record.Record) statusKey {
	return statusKey{rec.Path, rec.Branch, baseRev(rec)}
}

// StartStatuses begins asking the status of the worktrees of the records
// cached returns (it may wait for them), on as many git processes at once
// as there are cores.
func StartStatuses(ctx context.Context, g *git.Runner, cached func() []*record.Record) *EarlyStatuses {
	limit := async.NewLimit(0)
	return &EarlyStatuses{byKey: async.Start(func() (map[statusKey]*async.Value[worktreeStatus], error) {
		byKey := map[statusKey]*async.Value[worktreeStatus]{}
		for _, rec := range cached() {
			k := keyOf(rec)
			if _, dup := byKey[k]; dup {
				continue
			}
			if st, err := os.Stat(rec.Path); err != nil || !st.IsDir() {
				continue
			}
			byKey[k] = async.Start(func() (st worktreeStatus, err error) {
				limit.Do(func() { st, err = readStatus(ctx, g, rec.Path, rec, false) })
				return st, err
			})
		}
		return byKey, nil
	})}
}

// status is the early status of rec's worktree once git has answered, or
// nil if none was asked.
func (e *EarlyStatuses) status(rec *record.Record) *async.Value[worktreeStatus] {
	if e == nil {
		return nil
	}
	byKey, _ := e.byKey.Get()
	return byKey[keyOf(rec)]
}

// taskStatus is the status of rec's worktree: the one asked early, if it
// was, else asked now.
func (m *Inspector) taskStatus(ctx context.Context, rec *record.Record) (worktreeStatus, error) {
	if early := m.early.status(rec); early != nil {
		return early.Get()
	}
	return readStatus(ctx, m.Git, rec.Path, rec, false)
}
