package removal

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

// Retained is what retention did, or would do, with one task.
type Retained struct {
	Task    string `json:"task"`
	Path    string `json:"path"`
	Reason  string `json:"reason"`  // which policy wanted it gone
	Outcome string `json:"outcome"` // removed, would remove, or kept: why
	// Kind is set when the task was kept to protect data: the refusal's
	// kind (unmerged: gc --merged and commits made after the merge).
	Kind exitcode.Kind `json:"kind,omitempty"`
}

// Retention is the limits gc applies.
type Retention struct {
	maxAge       time.Duration
	maxCount     int
	maxTotalSize int64
}

func (p Retention) none() bool { return p.maxAge <= 0 && p.maxCount <= 0 && p.maxTotalSize <= 0 }

// RetentionPolicy is the retention policy of the settings, with the
// limits that are set (a gc flag) overriding them.
func (m *Remover) RetentionPolicy(maxAge *time.Duration, maxCount *int) Retention {
	p := Retention{maxAge: m.Settings.MaxAge, maxCount: m.Settings.MaxCount, maxTotalSize: m.Settings.MaxTotalSize}
	if maxAge != nil {
		p.maxAge = *maxAge
	}
	if maxCount != nil {
		p.maxCount = *maxCount
	}
	return p
}

// Retainment is what the retention policy did (in a dry run: would do),
// in its order (SPEC §20): over wt.maxTotalSize, idle tasks' build output
// reclaimed first, then pool entries drained, then tasks removed.
type Retainment struct {
	Reclaimed []Reclaimed
	Drained   []record.PoolDrained
	Retained  []Retained
}

// Retain applies the policy to clean, unlocked, unused worktrees whose
// commits are merged or pushed, least recently used first; over
// wt.maxTotalSize it reclaims idle tasks' build output first, then
// drains pool entries, and says which.
func (m *Remover) Retain(ctx context.Context, p Retention, dryRun bool) (*Retainment, error) {
	if p.none() {
		return &Retainment{}, nil
	}
	lives, _, err := m.Inspect(ctx, inspect.LiveOptions{Size: p.maxTotalSize > 0})
	if err != nil {
		return nil, err
	}
	var pooled int64
	if p.maxTotalSize > 0 && m.Pool != nil {
		pooled = m.Pool.Size(ctx)
	}
	r := &Retainment{}
	r.Reclaimed = p.reclaimFirst(lives, pooled, func(l *inspect.Live) (Reclaimed, bool) { return m.reclaimOne(ctx, l, dryRun) })
	pooled, r.Drained = m.shrinkPool(ctx, p, lives, pooled, dryRun)
	r.Retained = p.apply(lives, pooled, func(l *inspect.Live) string { return m.retire(ctx, l, dryRun) })
	return r, nil
}

// reclaimFirst reclaims the build output of tasks, least recently used
// first, while the tasks and the pool (pooled) together pass
// wt.maxTotalSize, and lowers each task's size by what went (or would).
// reclaim does one task, and is false where there was nothing to look at.
func (p Retention) reclaimFirst(lives []inspect.Live, pooled int64, reclaim func(*inspect.Live) (Reclaimed, bool)) []Reclaimed {
	if p.maxTotalSize <= 0 {
		return nil
	}
	total := pooled
	for _, l := range lives {
		total += l.Size
	}
	var out []Reclaimed
	for _, l := range leastRecentlyUsed(lives) {
		if total < p.maxTotalSize {
			break
		}
		r, ok := reclaim(l)
		if !ok {
			continue
		}
		if r.freed() {
			l.Size -= r.Bytes
			total -= r.Bytes
		}
		out = append(out, r)
	}
	return out
}

// shrinkPool drains the warm pool's entries, oldest first, while the
// tasks and the pool (pooled bytes) pass wt.maxTotalSize, and says what
// the pool takes after: only what the tasks still need beyond it retires
// tasks. A dry run counts what its drain would free, so that it names
// the tasks the real run removes.
func (m *Remover) shrinkPool(ctx context.Context, p Retention, lives []inspect.Live, pooled int64, dryRun bool) (int64, []record.PoolDrained) {
	if p.maxTotalSize <= 0 || m.Pool == nil {
		return 0, nil
	}
	var tasks int64
	for _, l := range lives {
		tasks += l.Size
	}
	over := tasks + pooled - p.maxTotalSize
	if over < 0 || pooled == 0 {
		return pooled, nil
	}
	drained := m.Pool.Shrink(ctx, over+1, dryRun)
	for _, d := range drained {
		pooled -= d.Size
	}
	return max(pooled, 0), drained
}

// apply walks the tasks that may go, least recently used first, and
// retires each one a limit wants gone. A task retired (or that would be)
// no longer counts toward the limits; one kept still does. pooled is the
// disk the warm pool takes, which counts toward wt.maxTotalSize.
func (p Retention) apply(lives []inspect.Live, pooled int64, retire func(*inspect.Live) string) []Retained {
	total := pooled
	count := 0
	var cands []*inspect.Live
	for i := range lives {
		l := &lives[i]
		if l.Entry.Record == nil {
			continue
		}
		count++
		total += l.Size
		if l.Exists && removable(l.Entry.Record.State) {
			cands = append(cands, l)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].LastAccess.Before(cands[j].LastAccess) })
	var out []Retained
	for _, l := range cands {
		reason := p.wants(l, count, total)
		if reason == "" {
			continue
		}
		rec := l.Entry.Record
		r := Retained{Task: rec.Task, Path: rec.Path, Reason: reason, Outcome: retire(l)}
		if r.Outcome == "removed" || r.Outcome == "would remove" {
			count--
			total -= l.Size
		}
		out = append(out, r)
	}
	return out
}

// wants says which limit wants the task gone, or "".
func (p Retention) wants(l *inspect.Live, count int, total int64) string {
	switch idle := time.Since(l.LastAccess); {
	case p.maxAge > 0 && idle > p.maxAge:
		return fmt.Sprintf("unused for %s (wt.maxAge %s)", settings.FormatDuration(idle), settings.FormatDuration(p.maxAge))
	case p.maxCount > 0 && count > p.maxCount:
		return fmt.Sprintf("%d tasks (wt.maxCount %d)", count, p.maxCount)
	case p.maxTotalSize > 0 && total >= p.maxTotalSize:
		return fmt.Sprintf("task worktrees use %s (wt.maxTotalSize %s)", settings.FormatSize(total), settings.FormatSize(p.maxTotalSize))
	}
	return ""
}

// retire removes a task the policy wants gone, if that loses nothing: its
// commits must be merged or pushed, and RemoveEntry refuses dirty, locked
// and in-use worktrees.
func (m *Remover) retire(ctx context.Context, l *inspect.Live, dryRun bool) string {
	rec := l.Entry.Record
	if merged, err := m.Merged(ctx, rec); err != nil || !merged {
		n, err := m.UnmergedCommits(ctx, rec)
		switch {
		case err != nil:
			return "kept: cannot tell whether its commits are merged or pushed: " + err.Error()
		case n > 0:
			return fmt.Sprintf("kept: %d %s neither merged nor pushed", n, text.Plural(n, "commit", "commits"))
		}
	}
	entry := l.Entry
	r := m.RemoveEntry(ctx, &entry, RemoveOptions{DryRun: dryRun, KeepUnmerged: true})
	switch {
	case r.Err != nil:
		return "kept: " + r.Err.Error()
	case dryRun:
		return "would remove"
	}
	return "removed"
}
