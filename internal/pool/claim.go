package pool

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Offer is the entries one `new` may claim, best first, handed out one at
// a time: the claim itself is the caller's transaction (the record's
// creation deletes the entry's ref at the value read here).
type Offer struct {
	p     *Pool
	items []record.PoolItem
	// first is the look at items[0], started when the offer was made:
	// its git status runs while new does its other work.
	first *async.Value[look]
	// held is the entry lock of the entry Next handed out last.
	held *lock.Lock
}

// look is what a new found of an entry: the entry's lock, nil when
// another process holds it, and with the lock why the entry is unfit, ""
// when it is fit.
type look struct {
	held *lock.Lock
	why  string
}

// Offer lists the ready entries, those made at commit first (their files
// are the base's already). nil when there are none.
func (p *Pool) Offer(ctx context.Context, commit string) *Offer {
	items, err := p.Entries(ctx)
	if err != nil {
		return nil
	}
	// An entry of an earlier wt.baseDir's pool folder is not ready: it
	// is never handed out, and keeps its ref for drain and doctor.
	items = slices.DeleteFunc(items, func(it record.PoolItem) bool { return !p.ready(&it) })
	if len(items) == 0 {
		return nil
	}
	// In a random order within each kind: a burst of new would otherwise
	// all check, and race for, the same entry first, and all but one
	// start again on the next.
	rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	atCommitFirst(items, commit)
	o := &Offer{p: p, items: items}
	first := &items[0]
	o.first = async.Start(func() (look, error) { return p.look(ctx, first), nil })
	return o
}

// atCommitFirst puts the entries made at commit before the others, each
// kind keeping its order: their files need no change to be the base's.
func atCommitFirst(items []record.PoolItem, commit string) {
	slices.SortStableFunc(items, func(a, b record.PoolItem) int {
		switch at := a.Entry.Commit == commit; {
		case at == (b.Entry.Commit == commit):
			return 0
		case at:
			return -1
		}
		return 1
	})
}

// Next is the next entry fit to hand out, or nil. An entry found unfit
// (dirty, locked, not where its ref says) is never handed out and never
// deleted: its ref is dropped, its worktree stays, and doctor reports it.
func (o *Offer) Next(ctx context.Context) *record.PoolItem {
	for o != nil && len(o.items) > 0 {
		it := &o.items[0]
		o.items = o.items[1:]
		seen := o.lookAt(ctx, it)
		if seen.held == nil {
			continue // another new is claiming it
		}
		o.held = seen.held
		if seen.why == "" {
			return it
		}
		o.Release()
		if o.p.Store.DeletePool(ctx, it) == nil {
			o.p.Warn("pool entry %s was not handed out and left where it is: %s (git wt doctor)", it.Entry.Path, seen.why)
		}
	}
	return nil
}

// lookAt is the look at it: for the first entry the one started with the
// offer, else one made now, once the last entry's lock is let go.
func (o *Offer) lookAt(ctx context.Context, it *record.PoolItem) look {
	if first := o.first; first != nil {
		o.first = nil
		seen, _ := first.Get()
		return seen
	}
	o.Release()
	return o.p.look(ctx, it)
}

// look takes the entry lock of it, then checks the entry. The lock comes
// first: the new that holds it may be moving the entry and bringing its
// files, and a git status run there meanwhile would take the entry's
// index lock from under its read-tree.
func (p *Pool) look(ctx context.Context, it *record.PoolItem) look {
	l, ok := p.holdEntry(it.ID)
	if !ok {
		return look{}
	}
	return look{held: l, why: p.fit(ctx, it)}
}

// Release lets go of the entry lock of the entry handed out last: once it
// left the pool folder, or was not taken. A look started with the offer
// and never used is waited for, and its lock let go too.
func (o *Offer) Release() {
	if o == nil {
		return
	}
	if first := o.first; first != nil {
		o.first = nil
		seen, _ := first.Get()
		seen.held.Release()
	}
	o.held.Release()
	o.held = nil
}

// Gone says whether another process took (or dropped) the entry since
// it was offered: a claim that failed on it may try the next.
func (o *Offer) Gone(ctx context.Context, it *record.PoolItem) bool {
	objs, err := o.p.Git.ReadObjects(ctx, o.p.Repo.MainDir, record.PoolRef(it.ID))
	return err == nil && (objs[0].Missing || objs[0].OID != it.OID)
}

// fit is unfit for an entry's ref: its folder must also be where entries go.
func (p *Pool) fit(ctx context.Context, it *record.PoolItem) string {
	if !p.isEntryFolder(it.Entry.Path) {
		return "it is not in the pool folder " + p.Folder()
	}
	return p.unfit(ctx, it.Entry.Path)
}

// ready says whether the entry is ready to hand out as far as its ref
// tells: made whole, in the pool folder of the base dir of now.
func (p *Pool) ready(it *record.PoolItem) bool {
	return it.Err == nil && it.Entry.Ready && p.isEntryFolder(it.Entry.Path)
}

// ErrUnfit is a claimed entry that could not be made the task's
// worktree: it was not moved, or it is back in the pool folder, without a
// ref (doctor reports it), and the caller checks the task out afresh.
var ErrUnfit = errors.New("the pool entry could not be used")

// MoveIn moves the entry it, claimed, to path (git worktree move: a
// rename), after making path's parents and removing an empty folder there.
func (p *Pool) MoveIn(ctx context.Context, it *record.PoolItem, path string) error {
	err := clearTarget(path)
	if err == nil {
		err = p.moveWorktree(ctx, it.Entry.Path, path)
	}
	if err != nil {
		p.Warn("pool entry %s was not used and left where it is: it could not be moved to %s (%v) (git wt doctor)", it.Entry.Path, path, err)
		return fmt.Errorf("%w: %v", ErrUnfit, err)
	}
	task.Checkpoint(ctx, "new:pool-moved")
	return nil
}

// moveWorktree moves a worktree (git worktree move) under the repository
// lock: git worktree move reads every worktree's admin files, which a git
// worktree add writes one by one (commondir empty for a moment), and dies
// on a half-written one; git-wt adds its worktrees under that lock.
func (p *Pool) moveWorktree(ctx context.Context, from, to string) error {
	l, err := p.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	return p.Git.MoveWorktree(ctx, p.Repo.MainDir, from, to)
}

// BringFiles makes the entry it, moved to path, a checkout of commit on
// the branch ref: while HEAD is still detached, a two-tree read-tree from
// the entry's commit to commit writes only the files that differ; then
// HEAD is pointed at the branch. If the files cannot follow, the worktree
// goes back to the pool folder (ErrUnfit).
func (p *Pool) BringFiles(ctx context.Context, it *record.PoolItem, path, commit, ref string) error {
	e := it.Entry
	if e.Commit != commit {
		if err := p.Git.Index().MoveFiles(ctx, path, e.Commit, commit); err != nil {
			if merr := p.moveWorktree(ctx, path, e.Path); merr != nil {
				return fmt.Errorf("cannot bring the files of pool entry %s to %s (%v), nor put it back (%v)", e.ID, commit, err, merr)
			}
			p.Warn("pool entry %s was not used and left where it is: its files could not be brought to the base (%v) (git wt doctor)", e.Path, err)
			return fmt.Errorf("%w: %v", ErrUnfit, err)
		}
	}
	task.Checkpoint(ctx, "new:pool-files")
	return p.Git.PointHead(ctx, path, ref)
}

// clearTarget makes way for a worktree moved to path: its parents exist,
// and an empty folder there is removed (git worktree move refuses one);
// anything else there stays, and the move is not made.
func clearTarget(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("cannot use %s for the task: %w", path, err)
	}
	return nil
}

// StartFill starts `git wt pool --fill` in the background, detached from
// this process, its output appended to the pool log: the pool tops
// itself up after a claim without the caller waiting.
func (p *Pool) StartFill() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	log, err := p.openLog()
	if err != nil {
		return
	}
	defer log.Close()
	_, err = child.Cmd{Path: exe, Args: []string{"pool", "--fill", "--quiet"}, Dir: p.Repo.MainDir, Stdout: log, Stderr: log}.Detach()
	if err != nil {
		p.Warn("could not start git wt pool --fill: %v", err)
	}
}
