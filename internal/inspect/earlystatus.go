package inspect

import (
	"context"
	"os"

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
	ready chan struct{} // byKey is complete
	byKey map[statusKey]*earlyStatus
}

type statusKey struct{ path, branch, base string }

func keyOf(rec *record.Record) statusKey {
	return statusKey{rec.Path, rec.Branch, baseRev(rec)}
}

type earlyStatus struct {
	done chan struct{}
	st   worktreeStatus
	err  error
}

// StartStatuses begins asking the status of the worktrees of the records
// cached returns (it may wait for them), on as many git processes at once
// as there are cores.
func StartStatuses(ctx context.Context, g *git.Runner, cached func() []*record.Record) *EarlyStatuses {
	e := &EarlyStatuses{ready: make(chan struct{}), byKey: map[statusKey]*earlyStatus{}}
	go func() {
		var todo []*record.Record
		for _, rec := range cached() {
			k := keyOf(rec)
			if _, dup := e.byKey[k]; dup {
				continue
			}
			if st, err := os.Stat(rec.Path); err != nil || !st.IsDir() {
				continue
			}
			e.byKey[k] = &earlyStatus{done: make(chan struct{})}
			todo = append(todo, rec)
		}
		close(e.ready)
		parallel(len(todo), func(i int) {
			s := e.byKey[keyOf(todo[i])]
			s.st, s.err = readStatus(ctx, g, todo[i].Path, todo[i])
			close(s.done)
		})
	}()
	return e
}

// status is the early status of rec's worktree once git has answered, or
// nil if none was asked.
func (e *EarlyStatuses) status(rec *record.Record) *earlyStatus {
	if e == nil {
		return nil
	}
	<-e.ready
	s := e.byKey[keyOf(rec)]
	if s != nil {
		<-s.done
	}
	return s
}

// taskStatus is the status of rec's worktree: the one asked early, if it
// was, else asked now.
func (m *Inspector) taskStatus(ctx context.Context, rec *record.Record) (worktreeStatus, error) {
	if early := m.early.status(rec); early != nil {
		return early.st, early.err
	}
	return readStatus(ctx, m.Git, rec.Path, rec)
}
