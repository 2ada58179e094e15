package task

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

// GCOptions are the flags of `git wt gc`. A nil limit means "use the
// setting"; a set one overrides it, 0 meaning no limit (SPEC §14).
type GCOptions struct {
	DryRun   bool
	Force    bool // delete dirty orphans; prune even when most worktrees look missing
	MaxAge   *time.Duration
	MaxCount *int
}

// Retained is what retention did, or would do, with one task.
type Retained struct {
	Task    string `json:"task"`
	Path    string `json:"path"`
	Reason  string `json:"reason"`  // which policy wanted it gone
	Outcome string `json:"outcome"` // removed, would remove, or kept: why
}

// GCReport is what gc found and did.
type GCReport struct {
	Orphans   []*Problem
	Retention []Retained
}

// orphanKinds are the problems gc cleans; the rest (foreign worktrees to
// adopt, corrupt records, interrupted merges) are doctor's to report.
var orphanKinds = map[string]bool{
	StuckCreation: true, InterruptedInit: true, MissingWorktree: true, UnregisteredFolder: true,
	PrunableEntry: true, LeftoverBranch: true, LeftoverTrash: true, LeftoverMerge: true,
	LegacyRecord: true, StuckRemoval: true, StaleRefLock: true,
}

// GC cleans orphans, then applies the retention policy (SPEC §7).
func (m *Manager) GC(ctx context.Context, o GCOptions) (*GCReport, error) {
	orphans, err := m.collectOrphans(ctx, RepairOptions{Force: o.Force, DryRun: o.DryRun})
	if err != nil {
		return nil, err
	}
	policy := m.policy(o)
	retained, err := m.retain(ctx, policy, o.DryRun)
	if err != nil {
		return nil, err
	}
	return &GCReport{Orphans: orphans, Retention: retained}, nil
}

// collectOrphans diagnoses and repairs the orphan kinds, after moving the
// records an earlier git-wt left under refs/wt/ (whose worktrees would
// otherwise look foreign).
func (m *Manager) collectOrphans(ctx context.Context, o RepairOptions) ([]*Problem, error) {
	var moved []*Problem
	if !o.DryRun {
		moved = m.MoveLegacy(ctx)
	}
	d, err := m.Diagnose(ctx)
	if err != nil {
		return nil, err
	}
	orphans := d.Problems[:0]
	for _, p := range d.Problems {
		if orphanKinds[p.Kind] {
			orphans = append(orphans, p)
		}
	}
	d.Problems = orphans
	m.Repair(ctx, d, o)
	return append(moved, orphans...), nil
}

// AutoGC is the orphan part of gc, run by `new` at most once per
// wt.gcInterval; when it is not due it costs one stat.
func (m *Manager) AutoGC(ctx context.Context) {
	interval := m.Settings.GCInterval
	if interval <= 0 {
		return
	}
	stamp := m.StateDir("gc-stamp")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < interval {
		return
	}
	now := time.Now()
	if err := os.Chtimes(stamp, now, now); err != nil {
		if os.MkdirAll(m.StateDir(), 0o777) != nil || os.WriteFile(stamp, nil, 0o666) != nil {
			return
		}
	}
	orphans, err := m.collectOrphans(ctx, RepairOptions{})
	if err != nil {
		m.Warn("gc --auto: %v", err)
		return
	}
	for _, p := range orphans {
		switch {
		case p.Outcome == Fixed:
			m.Warn("gc --auto: %s %s: %s", p.Kind, orDash(p.Path, p.Branch), p.Fix)
		case p.Outcome != LeftMovedOn && strings.HasPrefix(p.Outcome, "kept: "):
			m.Warn("gc --auto: %s %s: %s", p.Kind, orDash(p.Path, p.Branch), p.Outcome) // a task marked failed
		}
	}
}

func orDash(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// retentionPolicy is the limits gc applies.
type retentionPolicy struct {
	maxAge       time.Duration
	maxCount     int
	maxTotalSize int64
}

func (p retentionPolicy) none() bool { return p.maxAge <= 0 && p.maxCount <= 0 && p.maxTotalSize <= 0 }

func (m *Manager) policy(o GCOptions) retentionPolicy {
	p := retentionPolicy{maxAge: m.Settings.MaxAge, maxCount: m.Settings.MaxCount, maxTotalSize: m.Settings.MaxTotalSize}
	if o.MaxAge != nil {
		p.maxAge = *o.MaxAge
	}
	if o.MaxCount != nil {
		p.maxCount = *o.MaxCount
	}
	return p
}

// retain applies the policy to clean, unlocked, unused worktrees whose
// commits are merged or pushed, least recently used first.
func (m *Manager) retain(ctx context.Context, p retentionPolicy, dryRun bool) ([]Retained, error) {
	if p.none() {
		return nil, nil
	}
	lives, _, err := m.Inspect(ctx, LiveOptions{Size: p.maxTotalSize > 0})
	if err != nil {
		return nil, err
	}
	var total int64
	count := 0
	var cands []*Live
	for i := range lives {
		l := &lives[i]
		if l.Entry.Record == nil {
			continue
		}
		count++
		total += l.Size
		if l.Exists && (l.Entry.Record.State == record.Active || l.Entry.Record.State == record.Adopted || l.Entry.Record.State == record.Failed) {
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
		r := Retained{Task: rec.Task, Path: rec.Path, Reason: reason, Outcome: m.retire(ctx, l, dryRun)}
		if r.Outcome == "removed" || r.Outcome == "would remove" {
			count--
			total -= l.Size
		}
		out = append(out, r)
	}
	return out, nil
}

// wants says which limit wants the task gone, or "".
func (p retentionPolicy) wants(l *Live, count int, total int64) string {
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
func (m *Manager) retire(ctx context.Context, l *Live, dryRun bool) string {
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
