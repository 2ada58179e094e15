package policy

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/leftover"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/saved"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// GCOptions are the flags of `git wt gc`. A nil limit means "use the
// setting"; a set one overrides it, 0 meaning no limit (SPEC §14).
type GCOptions struct {
	DryRun   bool
	Force    bool // delete dirty orphans; prune even when most worktrees look missing
	MaxAge   *time.Duration
	MaxCount *int
	// Reclaim is gc --reclaim: only the build output of idle tasks goes
	// (SPEC §20), no orphan, no task.
	Reclaim bool
}

// GCReport is what gc found and did.
type GCReport struct {
	Orphans   []*task.Problem    `json:"orphans"`
	Retention []removal.Retained `json:"retention"`
	// Reclaim is the build output reclaimed (SPEC §20): by --reclaim, or
	// first of all over wt.maxTotalSize.
	Reclaim []removal.Reclaimed `json:"reclaim"`
	// Pool are the pool entries drained (SPEC §11): for wt.maxTotalSize,
	// before any task, and the stale ones.
	Pool []pool.Drained `json:"-"`
	// Trash are the saved states of removed tasks that expired
	// (wt.trashKeep; SPEC §20): deleted, or in a dry run to be.
	Trash []ExpiredState `json:"trash"`
}

// ExpiredState is a saved state gc deleted (or would).
type ExpiredState struct {
	ID      string    `json:"id"`
	Task    string    `json:"task,omitempty"` // "" when its info is corrupt
	SavedAt time.Time `json:"saved_at"`
}

// Failed says whether a repair gc tried failed (a deletion of leftover
// trash that still cannot be deleted), or a deletion of build output did:
// gc then exits 1.
func (r *GCReport) Failed() bool {
	for _, c := range r.Reclaim {
		if strings.HasPrefix(c.Outcome, "failed: ") {
			return true
		}
	}
	for _, p := range r.Orphans {
		if strings.HasPrefix(p.Outcome, task.RepairFailed) {
			return true
		}
	}
	return false
}

// orphanKinds are the problems gc cleans; the rest (foreign worktrees to
// adopt, corrupt records, interrupted merges) are doctor's to report.
var orphanKinds = map[task.Kind]bool{
	task.StuckCreation: true, task.InterruptedInit: true, task.MissingWorktree: true, task.UnregisteredFolder: true,
	task.PrunableEntry: true, leftover.UnlistedAdminEntry: true, task.LeftoverBranch: true, task.LeftoverTrash: true, task.LeftoverMerge: true,
	task.LegacyRecord: true, task.StuckRemoval: true, leftover.StaleRefLock: true, leftover.StaleGCLock: true,
	pool.OrphanEntry: true, pool.UnfinishedEntry: true,
}

// GC cleans orphans, then applies the retention policy (SPEC §7); with
// o.Reclaim, it reclaims idle tasks' build output only (SPEC §20).
func (m *Doctor) GC(ctx context.Context, o GCOptions) (*GCReport, error) {
	if o.Reclaim {
		reclaimed, err := m.Reclaim(ctx, o.DryRun)
		return &GCReport{Reclaim: reclaimed}, err
	}
	orphans, err := m.collectOrphans(ctx, task.RepairOptions{Force: o.Force, DryRun: o.DryRun})
	if err != nil {
		return nil, err
	}
	policy := m.RetentionPolicy(o.MaxAge, o.MaxCount)
	retained, err := m.Retain(ctx, policy, o.DryRun)
	if err != nil {
		return nil, err
	}
	r := &GCReport{Orphans: orphans, Retention: retained.Retained, Reclaim: retained.Reclaimed}
	stale, err := m.drainStale(ctx, retained.Drained, o.DryRun)
	if err != nil {
		return nil, err
	}
	r.Pool = append(retained.Drained, stale...)
	r.Trash = m.expireTrash(ctx, o.DryRun)
	return r, nil
}

// expireTrash deletes the saved states older than wt.trashKeep (none
// when it is 0), by the time in their ref names, and says which. A
// failure is a warning: the states stay for the next gc.
func (m *Doctor) expireTrash(ctx context.Context, dryRun bool) []ExpiredState {
	if m.Settings.TrashKeep <= 0 {
		return nil
	}
	store := saved.Of(m.Git, m.Repo)
	entries, err := store.List(ctx)
	if err != nil {
		m.Warn("cannot read the saved states of removed tasks: %v", err)
		return nil
	}
	old := saved.Expired(entries, time.Now().Add(-m.Settings.TrashKeep))
	if len(old) == 0 {
		return nil
	}
	if !dryRun {
		if err := store.Delete(ctx, old); err != nil {
			m.Warn("cannot delete the saved states older than %s: %v", settings.FormatDuration(m.Settings.TrashKeep), err)
			return nil
		}
	}
	expired := make([]ExpiredState, 0, len(old))
	for _, e := range old {
		x := ExpiredState{ID: e.ID, SavedAt: e.At}
		if e.Info != nil {
			x.Task = e.Info.Task
		}
		expired = append(expired, x)
	}
	return expired
}

// drainStale drains the pool entries older than wt.poolMaxAge or too far
// behind their base (a dry run says which it would), leaving out those
// the size limit drained already, then starts a fill that makes fresh
// ones, as far as wt.maxTotalSize lets it.
func (m *Doctor) drainStale(ctx context.Context, shrunk []pool.Drained, dryRun bool) ([]pool.Drained, error) {
	stale := m.pool.Stale(ctx)
	looked := map[string]bool{} // each entry is reported once
	for _, d := range shrunk {
		looked[d.ID] = true
	}
	drained, err := m.pool.Drain(ctx, pool.DrainOptions{DryRun: dryRun, Reason: "stale",
		Keep: func(e *record.PoolEntry) bool { return looked[e.ID] || !stale(e) }})
	if err == nil && !dryRun && m.pool.Enabled() {
		m.pool.StartFill()
	}
	return drained, err
}

// collectOrphans diagnoses and repairs the orphan kinds, after moving the
// records an earlier git-wt left under refs/wt/ (whose worktrees would
// otherwise look foreign).
func (m *Doctor) collectOrphans(ctx context.Context, o task.RepairOptions) ([]*task.Problem, error) {
	var first []*task.Problem
	if !o.DryRun {
		first = append(m.RepairAdminEntries(ctx), m.MoveLegacy(ctx)...)
	}
	d, err := m.Diagnose(ctx)
	if err != nil {
		return nil, err
	}
	d.Problems = orphansOf(d.Problems)
	m.Repair(ctx, d, o)
	return append(first, d.Problems...), nil
}

// orphansOf keeps the problems gc cleans, in their order.
func orphansOf(problems []*task.Problem) []*task.Problem {
	var orphans []*task.Problem
	for _, p := range problems {
		if orphanKinds[p.Kind] {
			orphans = append(orphans, p)
		}
	}
	return orphans
}

// AutoGC is the orphan part of gc, run by `new` at most once per
// wt.gcInterval; when it is not due it costs one stat.
func (m *Doctor) AutoGC(ctx context.Context) {
	interval := m.Settings.GCInterval
	if interval <= 0 {
		return
	}
	stamp := m.StateDir("gc-stamp")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < interval {
		return
	}
	if fsutil.TouchUnder(m.StateDir(), stamp) != nil {
		return
	}
	orphans, err := m.collectOrphans(ctx, task.RepairOptions{})
	if err != nil {
		m.Warn("gc --auto: %v", err)
		return
	}
	for _, p := range orphans {
		switch {
		case p.Outcome == task.Fixed:
			m.Warn("gc --auto: %s %s: %s", p.Kind, orDash(p.Path, p.Branch), p.Fix)
		case p.Outcome != task.LeftMovedOn && strings.HasPrefix(p.Outcome, "kept: "):
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
