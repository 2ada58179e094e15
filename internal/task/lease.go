package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
)

// The lease (SPEC §15). A process that cannot see a task's owner (a
// sandbox, another PID namespace) counts the owner's operation in flight
// until wt.orphanGrace after the owner last signed the record. An
// operation that can outlast the grace — an init, a sync, a merge — signs
// again while it works: Renew re-signs the record (its changed_at, by
// compare-and-swap on the blob this process wrote) every LeaseInterval,
// from a goroutine that the operation stops before its next write of the
// record. An operation shorter than one interval costs no write at all.

// LeaseInterval is how often an operation renews its lease under the
// grace: four times per grace, but never more often than every 2 s, and
// at least once a minute.
func LeaseInterval(grace time.Duration) time.Duration {
	return min(max(grace/4, 2*time.Second), time.Minute)
}

// Renew keeps renewing the lease of this process's operation on e's task
// until stop is called, and returns stop (which may be called more than
// once: the first call ends the lease). While the lease runs it owns e:
// the operation must not read or write the record through e until stop
// has returned, which leaves e as the lease last wrote it (so the
// operation's next write finds its blob). The lease ends by itself when
// the record is not this process's any more (another process took the
// task over: the operation learns it at its next write).
func (m *Manager) Renew(e *record.Entry) (stop func()) {
	return renewing(m.Settings.OrphanGrace, func() bool { return m.resign(e) })
}

// RenewStamp keeps renewing the lease of this process on what it names
// after itself (a merge's temporary worktree), whose stamp is at path:
// its modification time, which doctor reads when it cannot see the
// process, is set to now every LeaseInterval until stop is called.
func RenewStamp(path string, grace time.Duration) (stop func()) {
	return renewing(grace, func() bool {
		now := time.Now()
		return !os.IsNotExist(os.Chtimes(path, now, now))
	})
}

// renewing calls renew every LeaseInterval of grace until stop is called
// or renew says the lease is over; it returns stop, which waits for a
// renewal under way, and may be called more than once. With no grace
// there is no lease: an owner that cannot be seen counts as stopped at
// once, and a renewal could only get in a repair's way.
func renewing(grace time.Duration, renew func() bool) (stop func()) {
	if grace <= 0 {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(LeaseInterval(grace))
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				if !renew() {
					return
				}
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-done
	})
}

// resign signs e's record again, now, if this process signed it; it
// reports whether the lease goes on. A write that fails for another
// reason than a change by another process is tried again next time.
func (m *Manager) resign(e *record.Entry) bool {
	if !e.Record.Owner().SameProcess(Self()) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), RollbackTimeout)
	defer cancel()
	rec := *e.Record
	rec.ChangedAt = time.Now().UTC().Round(0)
	next := *e
	next.Record = &rec
	// A store of its own: the operation's may be in use meanwhile, and
	// keeps caches that are not shared between goroutines.
	store := record.Store{Git: m.Store.Git, Dir: m.Store.Dir}
	err := m.PastStaleLock(next.Ref(), func() error { return store.Save(ctx, &next) })
	if err == nil {
		*e = next
	}
	return !errors.Is(err, git.ErrStale)
}

// HowStopped says, for a message, how the owner of rec's operation, not
// alive as alive says, is known to have stopped: proven dead, or its
// lease ran out while it cannot be seen. It names the owner's process,
// which is never the one judging.
func HowStopped(rec *record.Record, alive proc.Liveness) string {
	if alive == proc.Dead {
		return fmt.Sprintf("process %d died", rec.CreatorPID)
	}
	return fmt.Sprintf("the lease of process %d on %s was %s", rec.CreatorPID, rec.CreatorHost, notRenewed(rec))
}

// notRenewed says how long ago the owner of rec's operation, which cannot
// be seen, last renewed its lease.
func notRenewed(rec *record.Record) string {
	return fmt.Sprintf("not renewed for %s, and its process cannot be seen from here", settings.FormatDuration(Silence(rec.Owner(), rec.CreatedAt)))
}
