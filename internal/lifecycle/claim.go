package lifecycle

import (
	"context"
	"errors"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// claimLocked is claim, under the lock when wt.maxWorktrees or wt.port
// is set: the count, or the ports handed out, and the new record must then
// not interleave with another new's. For the count, what was seen before
// the lock is read again; the ports are chosen from the records read
// under the lock (from the ref files: no git process). Without either the
// record's compare-and-swap is all it takes.
func (m *Handler) claimLocked(ctx context.Context, o CreateOptions, b task.Base, baseDir string, u *Undo, seen *sighting, pc *poolClaim) (*record.Entry, bool, error) {
	if m.Settings.MaxWorktrees <= 0 && len(m.Settings.Ports) == 0 {
		return m.claim(ctx, nil, o, b, baseDir, u, seen, pc)
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return nil, false, err
	}
	defer l.Release()
	if m.Settings.MaxWorktrees > 0 {
		if seen, err = m.sight(ctx, o); err != nil {
			return nil, false, err
		}
	}
	return m.claim(ctx, l, o, b, baseDir, u, seen, pc)
}

// claim picks the slug, checks the limit, the branch name and the path,
// and writes the record in state "creating" before anything else exists,
// so that a crash never leaves a worktree without a record. A branch that
// does not exist yet is created in the same transaction as the record;
// branchMade says so. held is the repository lock when the limit or the
// ports need it, else nil. With a pool claim (pc), the record's
// transaction also takes a pool entry (storeRecord).
func (m *Handler) claim(ctx context.Context, held *lock.Lock, o CreateOptions, b task.Base, baseDir string, u *Undo, seen *sighting, pc *poolClaim) (e *record.Entry, branchMade bool, err error) {
	cands := seen.cands
	// Both the case check and the limit need every record: read them
	// once (the blobs from the cache), and only if either is on.
	var all []record.Entry
	var allErr error
	listed := false
	records := func() ([]record.Entry, error) {
		if !listed {
			all, allErr = m.Store.All(ctx)
			listed = true
		}
		return all, allErr
	}
	taken := map[string]bool{}
	for _, e := range seen.entries {
		if e.Record != nil && slug.SameID(e.Record.Task, o.TaskID) {
			return nil, false, errRaced
		}
		taken[e.Slug] = true
	}
	if m.Settings.IgnoreCase {
		if err := m.takenIgnoringCase(cands, taken, records); err != nil {
			return nil, false, err
		}
	}
	name := cands[0]
	if taken[name] {
		name = cands[1]
	}
	if taken[name] {
		return nil, false, exitcode.Usagef("task id %q collides with two existing tasks (%s, %s): choose another id", o.TaskID, cands[0], cands[1])
	}
	if err := m.checkLimit(records); err != nil {
		return nil, false, err
	}
	branch := m.branchFor(o, name)
	if o.Branch == "" && m.Settings.BranchPrefix != "wt/" {
		if err := m.CheckBranchName(ctx, branch); err != nil {
			return nil, false, exitcode.Usagef("invalid branch %q (check wt.branchPrefix)", branch)
		}
	}
	if b, seenIt := seen.branches[branch]; o.Fill != nil && !(seenIt && b.Missing) {
		return nil, false, exitcode.RefusedAs(exitcode.KindConflict, "branch %s exists: delete or rename it first (git branch -m), then restore again", branch)
	}
	path, err := place.WorktreePath(baseDir, m.Settings.BaseDir, name, o.Path)
	if err != nil {
		// What was seen may be old: a folder that is there now may be the
		// same task's, made meanwhile by another new.
		if exitcode.Of(err) == exitcode.Refused {
			if fresh, serr := m.sight(ctx, o); serr == nil && fresh.task(o.TaskID) != nil {
				return nil, false, errRaced
			}
		}
		return nil, false, err
	}
	if o.Path != "" {
		if err := m.Place.CheckChosenPath(ctx, baseDir, path); err != nil {
			return nil, false, err
		}
	}
	now := time.Now().UTC()
	rec := &record.Record{
		Task: o.TaskID, Slug: name, Branch: branch, Path: path,
		Base: b.Name(), BaseSHA: b.SyncedWith(), State: record.Creating,
		CreatedAt: now, LastAccessAt: now, Sparse: o.Sparse,
	}
	if len(m.Settings.Ports) > 0 {
		entries, err := m.Ports().Held(ctx, held)
		if err != nil {
			return nil, false, err
		}
		if rec.Ports, err = m.Ports().Allocate(held, entries, name, nil); err != nil {
			return nil, false, err
		}
	}
	rec.Stamp(task.Self())
	var also []git.Ref
	if seen.branches[branch].Missing {
		also = []git.Ref{{Name: task.BranchRef(branch), OID: b.SHA}}
	}
	// Only a branch made here, with the record, is git-wt's to delete.
	rec.SetBranchCreated(len(also) > 0)
	oid, err := m.storeRecord(ctx, rec, also, pc)
	if errors.Is(err, git.ErrStale) && len(also) > 0 && o.Fill == nil {
		// The record or the branch appeared meanwhile: if the branch, take
		// it like any existing one.
		if fresh, gerr := m.Store.Get(ctx, name); gerr == nil && len(fresh) == 0 {
			also = nil
			rec.SetBranchCreated(false)
			oid, err = m.storeRecord(ctx, rec, nil, pc)
		}
	}
	if errors.Is(err, git.ErrStale) {
		return nil, false, errRaced
	}
	if err != nil {
		return nil, false, err
	}
	e = &record.Entry{Slug: name, OID: oid, Record: rec}
	u.push(func(ctx context.Context) error { return m.dropRecord(ctx, e) })
	if len(also) > 0 {
		// Undo runs last-in first-out: the worktree goes before its branch,
		// the branch before the record.
		u.push(func(ctx context.Context) error { return m.dropNewBranch(ctx, branch, b.SHA) })
	}
	return e, len(also) > 0, nil
}

// takenIgnoringCase marks a candidate slug taken when another task's slug
// differs from it only in case or Unicode form: where the file system
// ignores them (core.ignorecase), the two would share a folder and a ref
// file.
func (m *Handler) takenIgnoringCase(cands [2]string, taken map[string]bool, records func() ([]record.Entry, error)) error {
	entries, err := records()
	if err != nil {
		return err
	}
	for _, e := range entries {
		other := e.Slug
		for _, c := range cands {
			if slug.Folds(other, c) {
				taken[c] = true
			}
		}
	}
	return nil
}

// checkLimit enforces wt.maxWorktrees; it runs under the lock, so the
// limit holds exactly under a burst of concurrent `new`. A record that
// cannot be read is no task and takes no slot (SPEC §7).
func (m *Handler) checkLimit(records func() ([]record.Entry, error)) error {
	max := m.Settings.MaxWorktrees
	if max <= 0 {
		return nil
	}
	entries, err := records()
	if err != nil {
		return err
	}
	// Adopted worktrees were made by someone else: they are tasks, but
	// take no slot (SPEC §14).
	n := 0
	for _, e := range entries {
		if e.Record != nil && e.Record.State != record.Adopted {
			n++
		}
	}
	if n >= max {
		return exitcode.Limitf("%d task worktrees exist and wt.maxWorktrees is %d: remove one (git wt rm, git wt gc) or raise the limit", n, max)
	}
	return nil
}
