package inspect

import (
	"context"
	"os"
	"time"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Live is a task's record with what is true of its worktree right now.
type Live struct {
	Entry      record.Entry
	Exists     bool // the worktree folder is there
	Worktree   *git.Worktree
	LastAccess time.Time // later of the access stamp and the record

	// Filled in only when the status was asked for.
	Dirty     int // -1 when git status failed
	Ahead     int
	Behind    int
	Merged    bool   // has commits of its own, and they are merged
	tip       string // the branch's commit, as status read it ("" unknown)
	StatusErr error

	Size int64 // bytes on disk; only with the size asked for
	// Reclaimable is the disk its build output takes (BuildOutput), which
	// gc --reclaim would free; only with the size asked for.
	Reclaimable int64
}

// LiveOptions say how much to find out about each task.
type LiveOptions struct {
	Status bool // dirty count, ahead/behind, merged: a few git calls per task
	Size   bool // disk use: a walk of each worktree
	// Worktrees reads git's worktree list even without the status (for
	// the worktrees that have no record).
	Worktrees bool
}

// Inspect reads every record and git's worktree list and, if asked, the
// status of each worktree, in parallel (bounded by the number of cores).
func (m *Inspector) Inspect(ctx context.Context, o LiveOptions) ([]Live, []git.Worktree, error) {
	entries, err := m.Store.All(ctx)
	if err != nil {
		return nil, nil, err
	}
	lives := make([]Live, len(entries))
	async.Each(len(entries), 0, func(i int) { lives[i] = m.live(entries[i], nil) }) // two stats each
	// git's worktree list reads every worktree's HEAD: only the foreign
	// worktrees (--all) need it, and it runs beside the statuses. Without
	// it, each task's status says what its worktree has checked out.
	var listed *async.Value[[]git.Worktree]
	if o.Worktrees {
		listed = async.Start(func() ([]git.Worktree, error) { return m.Git.Worktrees(ctx, m.Repo.MainDir) })
	}
	if o.Status || o.Size {
		meter := m.StartMeter("checking worktrees", int64(len(lives)), false)
		async.Each(len(lives), 0, func(i int) {
			m.fill(ctx, &lives[i], o)
			meter.Add(1)
		})
		meter.Done()
	}
	if o.Status {
		m.markMerged(ctx, lives)
	}
	wts, err := listed.Get()
	if err != nil {
		return nil, nil, err
	}
	if o.Worktrees {
		for i := range lives {
			if rec := lives[i].Entry.Record; rec != nil {
				lives[i].Worktree = task.FindWorktree(wts, rec.Path)
			}
		}
	}
	return lives, wts, nil
}

// markMerged fills in Merged for every task whose worktree exists, with
// one MergedSet for all of them.
func (m *Inspector) markMerged(ctx context.Context, lives []Live) {
	var recs []*record.Record
	for _, l := range lives {
		// A branch still at its base commit has no commits of its own,
		// so it is not merged: no need to ask git.
		if rec := l.Entry.Record; rec != nil && l.Exists && (l.tip == "" || l.tip != rec.BaseSHA) {
			recs = append(recs, rec)
		}
	}
	if len(recs) == 0 {
		return
	}
	set, _ := m.MergedSet(ctx, recs, "")
	for i := range lives {
		if rec := lives[i].Entry.Record; rec != nil {
			lives[i].Merged = set[rec.Slug]
		}
	}
}

// InspectOne is Inspect for one task already read.
func (m *Inspector) InspectOne(ctx context.Context, e record.Entry, o LiveOptions) (*Live, error) {
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return nil, err
	}
	l := []Live{m.live(e, wts)}
	m.fill(ctx, &l[0], o)
	if o.Status {
		m.markMerged(ctx, l)
	}
	return &l[0], nil
}

// live is what can be said of a task without running git.
func (m *Inspector) live(e record.Entry, wts []git.Worktree) Live {
	l := Live{Entry: e}
	if e.Record == nil {
		return l
	}
	l.Worktree = task.FindWorktree(wts, e.Record.Path)
	l.LastAccess = m.LastAccess(e.Record)
	if st, err := os.Stat(e.Record.Path); err == nil && st.IsDir() {
		l.Exists = true
	}
	return l
}

// fill adds the status and size of one task.
func (m *Inspector) fill(ctx context.Context, l *Live, o LiveOptions) {
	rec := l.Entry.Record
	if rec == nil || !l.Exists {
		return
	}
	if o.Status {
		st, err := m.taskStatus(ctx, rec)
		l.Dirty, l.Ahead, l.Behind, l.StatusErr, l.tip = st.dirty, st.ahead, st.behind, err, st.tip
		if err != nil {
			l.Dirty = -1
		} else if l.Worktree == nil {
			l.Worktree = st.worktree(rec.Path)
		}
		if !st.hasAB { // a base that is no ref, or another branch checked out
			l.Ahead, l.Behind, _ = m.AheadBehind(ctx, rec.Branch, baseRev(rec))
		}
	}
	if o.Size {
		l.Size = fsutil.DiskUsage(rec.Path)
		l.Reclaimable = m.BuildOutputSize(ctx, rec.Path)
	}
}
