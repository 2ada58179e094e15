package pool

import (
	"context"
	"time"

	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
)

// Entry is what `pool --status` says of one entry.
type Entry struct {
	*record.PoolEntry
	Behind int `json:"behind"` // commits of its base the entry lacks (-1: unknown)
	// Elsewhere: the entry is not in the pool folder (it was made in that
	// of an earlier wt.baseDir, or its ref was changed): not ready.
	Elsewhere bool `json:"elsewhere,omitempty"`
}

// Report is the pool as `pool --status` shows it.
type Report struct {
	Wanted  int     `json:"wanted"` // wt.pool
	Ready   int     `json:"ready"`
	Filling bool    `json:"filling"` // a fill is running now
	Folder  string  `json:"folder"`
	Log     string  `json:"log"`
	Entries []Entry `json:"entries"`
}

// Status reads the pool: its entries (unreadable ones left to doctor),
// how far each is behind its base (one count per distinct commit), and
// whether a fill runs.
func (p *Pool) Status(ctx context.Context) (*Report, error) {
	items, err := p.Entries(ctx)
	if err != nil {
		return nil, err
	}
	r := &Report{Wanted: p.Settings.Pool, Folder: p.Folder(), Log: p.LogPath(), Entries: []Entry{}}
	behind := p.behindCounter(ctx)
	for _, it := range items {
		if it.Err != nil {
			continue
		}
		e := Entry{PoolEntry: it.Entry, Behind: behind(it.Entry), Elsewhere: !p.isEntryFolder(it.Entry.Path)}
		if e.Elsewhere && it.Entry.Ready {
			shown := *it.Entry
			shown.Ready = false
			e.PoolEntry = &shown
		}
		if p.ready(&it) {
			r.Ready++
		}
		r.Entries = append(r.Entries, e)
	}
	r.Filling = p.Filling()
	return r, nil
}

// Filling says whether a fill runs now (it holds the fill lock).
func (p *Pool) Filling() bool {
	l, ok, err := lock.TryAcquire(p.fillLock())
	l.Release()
	return err == nil && !ok
}

// behindCounter counts how many commits of its base an entry lacks, once
// per distinct commit and base; -1 when git cannot tell.
func (p *Pool) behindCounter(ctx context.Context) func(*record.PoolEntry) int {
	seen := map[[2]string]int{}
	return func(e *record.PoolEntry) int {
		key := [2]string{e.Base, e.Commit}
		if n, ok := seen[key]; ok {
			return n
		}
		n := -1
		if _, behind, err := p.Git.AheadBehind(ctx, p.Repo.MainDir, e.Base, e.Commit); err == nil {
			n = behind
		}
		seen[key] = n
		return n
	}
}

// Stale says which entries gc drains: older than wt.poolMaxAge or more
// than wt.poolMaxBehind commits behind their base.
func (p *Pool) Stale(ctx context.Context) func(*record.PoolEntry) bool {
	behind := p.behindCounter(ctx)
	return func(e *record.PoolEntry) bool {
		return tooOldOrBehind(time.Since(e.CreatedAt), p.Settings.PoolMaxAge, p.Settings.PoolMaxBehind, func() int { return behind(e) })
	}
}

// tooOldOrBehind says whether an entry of age, behind() commits behind its
// base, is past wt.poolMaxAge or wt.poolMaxBehind (0: no limit). behind
// is asked only when the age does not decide: it runs git.
func tooOldOrBehind(age, maxAge time.Duration, maxBehind int, behind func() int) bool {
	if maxAge > 0 && age > maxAge {
		return true
	}
	return maxBehind > 0 && behind() > maxBehind
}
