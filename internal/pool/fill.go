package pool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Filled is what a fill did.
type Filled struct {
	Busy    bool     `json:"busy"`              // another fill was running: this one did nothing
	Made    []string `json:"made"`              // the entries made
	Dropped []string `json:"dropped"`           // entries removed: left by a killed fill, or beyond wt.pool
	Failed  string   `json:"failed,omitempty"`  // why the last entry could not be made
	Ready   int      `json:"ready"`             // entries ready when the fill ended
	Wanted  int      `json:"wanted"`            // wt.pool
	Skipped string   `json:"skipped,omitempty"` // why nothing was made (no space)
}

// errNoSpace stops a fill: a pool never takes the room a task needs.
var errNoSpace = errors.New("not enough disk space")

// errLimit stops a fill: entries count toward wt.maxTotalSize, which gc
// would otherwise meet by draining the entry the fill makes, again and
// again (SPEC §14).
var errLimit = errors.New("wt.maxTotalSize reached")

// Fill tops the pool up to wt.pool ready entries at the tip of the
// default base (the main worktree's branch). One fill runs at a time: a
// fill that finds another running does nothing (Busy). Holding that lock,
// any entry not ready is one a killed fill left: it is removed first.
// An entry is made only while its file system has room for it and for as
// much again (SPEC §14: entries never take the room a task needs). A
// claim while this fill runs starts a fill that finds this one busy, so
// once it has let its lock go this fill looks again, and tops up again
// for what was claimed meanwhile.
func (p *Pool) Fill(ctx context.Context) (*Filled, error) {
	f := &Filled{Wanted: p.Settings.Pool, Made: []string{}, Dropped: []string{}}
	for first := true; ; first = false {
		made := len(f.Made)
		ran, err := p.fillRound(ctx, f)
		if err != nil {
			return nil, err
		}
		if !ran {
			f.Busy = first // later, the other fill tops up what was claimed
			return f, nil
		}
		if f.Ready < f.Wanted || ctx.Err() != nil { // no space, or an entry failed
			return f, ctx.Err()
		}
		if !first && len(f.Made) == made {
			return f, nil // a look again that found nothing to do: never loop on it
		}
		if ready, err := p.readyCount(ctx); err != nil || ready >= f.Wanted {
			return f, nil
		}
	}
}

// readyCount is how many entries of the pool are ready.
func (p *Pool) readyCount(ctx context.Context) (int, error) {
	items, err := p.Entries(ctx)
	n := 0
	for _, it := range items {
		if it.Err == nil && it.Entry.Ready {
			n++
		}
	}
	return n, err
}

// fillRound is one round of Fill, under the fill lock; false when another
// fill holds it. f says what it did.
func (p *Pool) fillRound(ctx context.Context, f *Filled) (bool, error) {
	l, ok, err := lock.TryAcquire(p.fillLock())
	if err != nil || !ok {
		return false, err
	}
	defer l.Release()
	f.Ready = 0
	items, err := p.Entries(ctx)
	if err != nil {
		return true, err
	}
	for i := range items {
		it := &items[i]
		switch {
		case it.Err != nil: // doctor reports it
		case p.ready(it):
			f.Ready++
		case it.Entry.Ready: // elsewhere (an earlier wt.baseDir's): drained, kept if dirty
			if p.drop(ctx, it, false) == nil {
				f.Dropped = append(f.Dropped, it.ID)
			}
		default:
			if p.drop(ctx, it, true) == nil {
				f.Dropped = append(f.Dropped, it.ID)
			}
		}
	}
	if f.Ready > f.Wanted {
		// wt.pool went down: the oldest entries beyond it go.
		f.Ready -= p.trim(ctx, items, f.Ready-f.Wanted, f)
	}
	if f.Ready >= f.Wanted {
		return true, nil
	}
	base, err := p.ResolveBase(ctx, "")
	if err != nil {
		return true, err
	}
	if _, err := p.Place.PlaceNew(ctx, base.SHA); err != nil {
		return true, err
	}
	log, err := p.openLog()
	if err != nil {
		return true, err
	}
	defer log.Close()
	for f.Ready < f.Wanted && ctx.Err() == nil {
		id, err := p.make(ctx, base, log)
		if errors.Is(err, errNoSpace) || errors.Is(err, errLimit) {
			f.Skipped = err.Error()
			break
		}
		if err != nil {
			f.Failed = err.Error()
			fmt.Fprintf(log, "git-wt: %v\n", err)
			break
		}
		f.Made = append(f.Made, id)
		f.Ready++
	}
	return true, nil
}

// trim drains up to n ready entries of items, oldest first, and returns
// how many went.
func (p *Pool) trim(ctx context.Context, items []record.PoolItem, n int, f *Filled) int {
	gone := 0
	for i := range items {
		if it := &items[i]; gone < n && p.ready(it) && p.drop(ctx, it, false) == nil {
			f.Dropped = append(f.Dropped, it.ID)
			gone++
		}
	}
	return gone
}

// make makes one entry at base's commit and returns its id. The entry's
// ref is written (not ready) before git adds the worktree, both under the
// repository lock, which covers nothing slower: the checkout, the copies
// and wt.poolInit run after it. An entry that fails is removed; one that
// wt.poolInit left dirty fails, and the log names the files.
func (p *Pool) make(ctx context.Context, base task.Base, log io.Writer) (string, error) {
	if need, err := p.CheckoutSize(ctx, base.SHA, nil); err == nil {
		if free, err := fsutil.FreeSpace(p.Settings.BaseDir); err == nil && free < 2*need {
			return "", fmt.Errorf("%w in %s for a pool entry (%s free, a checkout needs %s, and as much is kept for a task)",
				errNoSpace, p.Settings.BaseDir, settings.FormatSize(free), settings.FormatSize(need))
		}
		if err := p.checkLimit(ctx, need); err != nil {
			return "", err
		}
	}
	now := time.Now().UTC()
	e := &record.PoolEntry{ID: newID(now), Commit: base.SHA, Base: base.Name(), State: record.Pooled, CreatedAt: now}
	e.Path = filepath.Join(p.Folder(), e.ID)
	e.Stamp(task.Self())
	fmt.Fprintf(log, "git-wt: making pool entry %s at %s (%s) (%s)\n", e.ID, base.Name(), base.SHA, now.Format(time.RFC3339))
	it, err := p.register(ctx, e)
	if err != nil {
		return "", err
	}
	task.Checkpoint(ctx, "pool:added")
	err = p.prepare(ctx, it, log)
	if err == nil {
		it.Entry.Ready = true
		it.Entry.Init.Status = record.InitSuccess
		err = p.Store.SavePool(ctx, it)
	}
	if err != nil {
		if ctx.Err() == nil {
			p.discard(ctx, it)
		}
		return "", fmt.Errorf("pool entry %s failed: %w", e.ID, err)
	}
	task.Checkpoint(ctx, "pool:ready")
	fmt.Fprintf(log, "git-wt: pool entry %s is ready\n", e.ID)
	return e.ID, nil
}

// checkLimit is errLimit when one more entry of need bytes would bring
// the tasks and the pool to wt.maxTotalSize, which gc then meets.
func (p *Pool) checkLimit(ctx context.Context, need int64) error {
	limit := p.Settings.MaxTotalSize
	if limit <= 0 {
		return nil
	}
	used := p.Size(ctx)
	entries, err := p.Store.All(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Record != nil {
			used += fsutil.DiskUsage(e.Record.Path)
		}
	}
	if used+need < limit {
		return nil
	}
	return fmt.Errorf("%w: tasks and pool use %s and an entry needs %s (wt.maxTotalSize %s)",
		errLimit, settings.FormatSize(used), settings.FormatSize(need), settings.FormatSize(limit))
}

// discard removes an entry this fill was making and could not finish:
// its ref, and its worktree, which is the fill's own even when the ref
// went meanwhile (a person deleted it, say).
func (p *Pool) discard(ctx context.Context, it *record.PoolItem) {
	if err := p.drop(ctx, it, true); errors.Is(err, git.ErrStale) {
		p.removeFolder(ctx, it.Entry.Path, true)
	}
}

// register writes the entry's ref and adds its worktree, detached and not
// checked out, under the repository lock.
func (p *Pool) register(ctx context.Context, e *record.PoolEntry) (*record.PoolItem, error) {
	l, err := p.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	it, err := p.Store.CreatePool(ctx, e)
	if err != nil {
		return nil, err
	}
	if err := p.Git.AddWorktree(ctx, p.Repo.MainDir, e.Path, e.Commit); err != nil {
		l.Release()
		p.discard(ctx, it)
		return nil, fmt.Errorf("cannot add the pool entry %s: %w", e.Path, err)
	}
	return it, nil
}

// prepare checks the entry out and sets it up; it must end clean.
func (p *Pool) prepare(ctx context.Context, it *record.PoolItem, log io.Writer) error {
	e := it.Entry
	if err := p.Git.CheckOutTree(ctx, e.Path, e.Commit); err != nil {
		return err
	}
	task.Checkpoint(ctx, "pool:checked-out")
	checkedOut := time.Now()
	ran, err := p.PreparePoolEntry(ctx, e.Path, e.Base, log, func(pgid int, start string) (ended func()) {
		// The entry names the running wt.poolInit's process group, as a
		// task's record names its init's: should the fill die with its
		// supervisor, the entry's repair ends what is left of the group
		// (endInit). Not cut short by an interrupt, as a task's write.
		e.Init.Status = record.InitRunning
		task.NameGroup(&e.Init, pgid, start)
		if err := p.Store.SavePool(context.WithoutCancel(ctx), it); err != nil && ctx.Err() == nil {
			p.Warn("could not record wt.poolInit's process group %d in pool entry %s: %v", pgid, e.ID, err)
		}
		// No lease to renew: what says the fill still runs is its lock,
		// which a process that cannot see the fill sees held all the same.
		return func() {}
	})
	e.Init.Ran = ran
	if err != nil {
		return err
	}
	// git tells a file changed by its stat data to the second: those
	// written in the second the index was written are read again by
	// every status until the index is written later. The claim's status
	// must not read them all: the index is refreshed once the second
	// has passed.
	if wait := time.Until(checkedOut.Truncate(time.Second).Add(time.Second + 10*time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
	if err := p.Git.Index().Refresh(ctx, e.Path); err != nil {
		return err
	}
	st, err := p.Git.Status(ctx, e.Path, gitStatusOptions)
	if err != nil {
		return err
	}
	if n := len(st.Entries); n > 0 {
		paths := make([]string, 0, n)
		for _, s := range st.Entries {
			paths = append(paths, s.Path)
		}
		return fmt.Errorf("wt.poolInit left %d %s changed or not ignored: %s (a pool entry must stay clean: add them to .gitignore, or move that setup to wt.init)",
			n, text.Plural(n, "file", "files"), text.ListSome(paths, 5))
	}
	return nil
}

// newID is a new entry's id: when it was made (so that ids sort oldest
// first) and a random part (two fills on two hosts never collide).
func newID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.Format("20060102-150405.000000") + "-" + hex.EncodeToString(b[:])
}
