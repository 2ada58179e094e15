// Package pool is the warm pool of SPEC §11: spare checkouts of the base,
// made ahead of time with the task-independent setup done (wt.copy,
// wt.poolInit), which `new` claims in place of a checkout. An entry is a
// registered worktree in <base dir>/.pool/<id>, detached at the base's
// commit, with a ref refs/git-wt/pool/<id> (record.PoolEntry). Entries are
// not tasks: list, count and wt.maxWorktrees leave them out.
//
// Who may touch an entry: the filler makes it (one at a time, a
// non-blocking flock), and only the holder of its ref at the value read
// removes it or hands it out. A claim deletes the ref in the transaction
// that creates the task's record, so two claims never take one entry, and
// a drain deletes the ref before it removes the worktree. Whoever looks
// into an entry or changes it (a claim, a drain, doctor's and gc's checks)
// holds the entry's lock meanwhile (entryLock).
package pool

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Pool is the warm pool of one repository.
type Pool struct {
	*task.Manager
	setupper
	sizer
}

// setupper prepares an entry when it is made.
type setupper interface {
	PreparePoolEntry(ctx context.Context, dir, base string, log io.Writer, started func(pgid int, start string) (ended func())) (ran bool, err error)
}

// sizer tells how much disk a checkout takes.
type sizer interface {
	CheckoutSize(ctx context.Context, commit string, sparse []string) (int64, error)
}

// New returns the pool of m's repository.
func New(m *task.Manager, s setupper, z sizer) *Pool {
	return &Pool{Manager: m, setupper: s, sizer: z}
}

// Enabled says whether `new` may claim entries: wt.pool is set.
func (p *Pool) Enabled() bool { return p.Settings.Pool > 0 }

// Folder is where the pool's entries go: this repository's own pool
// folder in the base dir (place.OwnFolder).
func (p *Pool) Folder() string { return p.Place.OwnFolder(p.Settings.BaseDir, place.PoolDir) }

// plainFolder is the plain .pool of an earlier git-wt in a shared base
// dir ("" when the plain name is this repository's own): its entries are
// this repository's where their refs, or git, say so.
func (p *Pool) plainFolder() string { return p.Place.PlainFolder(p.Settings.BaseDir, place.PoolDir) }

// LogPath is the pool's log: what fills wrote, poolInit's output.
func (p *Pool) LogPath() string { return p.StateDir("logs", "pool.log") }

// fillLock is the flock that lets one filler run at a time.
func (p *Pool) fillLock() string { return p.StateDir("pool.lock") }

// entryLock is the flock on the entry id that whoever looks into an
// entry or changes it holds: a claim from before its check until the
// entry has left the pool folder (between its transaction and the move
// the entry has no ref, and doctor or gc would take it for an orphan), a
// drain while it removes it, doctor and gc while they check it. git
// status, which each check runs, takes the entry's index lock for a
// moment, and a claim's read-tree that met it there would fail.
func (p *Pool) entryLock(id string) string { return p.StateDir("pool", id+".lock") }

// holdEntry takes the entry lock of the entry id: false when another
// process holds it (a claim, a drain or a check is at work on it).
func (p *Pool) holdEntry(id string) (*lock.Lock, bool) {
	l, ok, err := lock.TryAcquire(p.entryLock(id))
	return l, err == nil && ok
}

// errEntryBusy is an entry left alone because another process holds its
// lock.
func errEntryBusy(path string) error {
	return exitcode.RefusedAs(exitcode.KindBusy, "pool entry %s was left: a claim, a drain or a check is at work on it; try again once it is done", path)
}

// Entries reads every pool entry.
func (p *Pool) Entries(ctx context.Context) ([]record.PoolItem, error) {
	return p.Store.Pool(ctx, p.Repo.CommonDir)
}

// Age is how long ago the entry was made.
func Age(e *record.PoolEntry) time.Duration { return time.Since(e.CreatedAt) }

// openLog opens the pool log for appending, never through a link planted
// in git-wt's folder.
func (p *Pool) openLog() (*os.File, error) {
	return fsutil.OpenUnder(p.StateDir(), p.LogPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
}
