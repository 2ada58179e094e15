package removal

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// Reclaimed is what gc --reclaim did, or would do, with one task's build
// output (SPEC §20).
type Reclaimed struct {
	Task    string   `json:"task"`
	Path    string   `json:"path"`
	Folders []string `json:"folders"` // relative to Path
	Bytes   int64    `json:"bytes"`   // freed (in a dry run: would be); 0 when kept
	Outcome string   `json:"outcome"` // reclaimed, would reclaim, or kept: why
}

// The outcomes of a reclaim that deleted, or would delete.
const (
	OutcomeReclaimed    = "reclaimed"
	OutcomeWouldReclaim = "would reclaim"
)

// freed says whether the task's build output went (or would go).
func (r Reclaimed) freed() bool {
	return r.Outcome == OutcomeReclaimed || r.Outcome == OutcomeWouldReclaim
}

// Reclaim deletes the build output of every task idle for
// wt.reclaimAfter, least recently used first: the folders wt.reclaim names
// that git ignores whole (inspect.BuildOutput), in tasks no process works
// in (proved: unknown keeps the task), not locked, active or adopted. The
// task keeps its worktree; its record notes what was reclaimed, until a
// setup makes it again. Tasks without build output are left out of the
// report.
func (m *Remover) Reclaim(ctx context.Context, dryRun bool) ([]Reclaimed, error) {
	lives, _, err := m.Inspect(ctx, inspect.LiveOptions{})
	if err != nil {
		return nil, err
	}
	var out []Reclaimed
	for _, l := range leastRecentlyUsed(lives) {
		if r, ok := m.reclaimOne(ctx, l, dryRun); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// leastRecentlyUsed are the tasks whose worktree is there, least
// recently used first.
func leastRecentlyUsed(lives []inspect.Live) []*inspect.Live {
	var out []*inspect.Live
	for i := range lives {
		if lives[i].Entry.Record != nil && lives[i].Exists {
			out = append(out, &lives[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastAccess.Before(out[j].LastAccess) })
	return out
}

// reclaimOne reclaims one task's build output; ok is false when the task
// has none (or is in a state where it is not looked at).
func (m *Remover) reclaimOne(ctx context.Context, l *inspect.Live, dryRun bool) (r Reclaimed, ok bool) {
	e := l.Entry
	rec := e.Record
	if rec.State != record.Active && rec.State != record.Adopted || rec.Init.Status == record.InitRunning {
		return r, false // something runs in it (a creation, a sync, an adopted task's init), or it failed
	}
	r = Reclaimed{Task: rec.Task, Path: rec.Path, Folders: []string{}}
	folders, err := m.BuildOutput(ctx, rec.Path)
	if err != nil {
		r.Outcome = "kept: cannot list what git ignores in it: " + err.Error()
		return r, true
	}
	if len(folders) == 0 {
		return r, false
	}
	r.Folders = folders
	task.Checkpoint(ctx, "reclaim:listed")
	defer func() { l.Entry = e }() // as read again, and noted: retention, next, removes from there
	if why := m.keepsBuildOutput(ctx, &e, l.LastAccess); why != "" {
		r.Outcome = "kept: " + why
		return r, true
	}
	if r.Folders = m.untracked(ctx, rec.Path, folders); len(r.Folders) == 0 {
		r.Folders, r.Outcome = folders, "kept: git tracks a file in each folder now"
		return r, true
	}
	var failed []string
	if r.Folders, failed = withoutMounts(rec.Path, r.Folders); len(r.Folders) == 0 {
		r.Folders, r.Outcome = folders, "kept: "+strings.Join(failed, ", ")
		return r, true
	}
	paths := make([]string, len(r.Folders))
	for i, f := range r.Folders {
		paths[i] = filepath.Join(rec.Path, f)
	}
	before := fsutil.DiskUsage(paths...)
	if dryRun {
		r.Bytes, r.Outcome = before, OutcomeWouldReclaim
		return r, true
	}
	for _, f := range r.Folders {
		if err := fsutil.RemoveUnder(rec.Path, f); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", f, fsutil.UnwrapPathErr(err)))
		}
	}
	r.Bytes = before - fsutil.DiskUsage(paths...) // what failed stays counted
	r.Outcome = OutcomeReclaimed
	if len(failed) > 0 {
		r.Outcome = "failed: cannot delete " + strings.Join(failed, ", ")
	}
	m.noteReclaimed(ctx, &e, r.Bytes)
	return r, true
}

// keepsBuildOutput says why the task's build output stays ("" when it
// may go): not idle for wt.reclaimAfter, locked, in use, or changed since
// it was looked at (read again just before anything is deleted).
func (m *Remover) keepsBuildOutput(ctx context.Context, e *record.Entry, lastAccess time.Time) string {
	rec := e.Record
	admin, err := git.ProveLinked(m.Repo.CommonDir, rec.Path, rec.Path)
	if err != nil {
		return err.Error()
	}
	used := lastUse(lastAccess, inspect.LastActivity(rec.Path, admin))
	if why := notIdle(used, time.Now(), m.Settings.ReclaimAfter); why != "" {
		return why
	}
	if locked, _ := git.WorktreeLock(rec.Path); locked || rec.Locked {
		return "locked"
	}
	users, err := proc.UsersOf(rec.Path)
	switch {
	case err != nil:
		return fmt.Sprintf("cannot tell whether a process works in it (%v)", err)
	case len(users) > 0:
		return fmt.Sprintf("in use by process %d (%s)", users[0].PID, users[0].Name)
	}
	examined := e.OID
	if err := m.Reload(ctx, e); err != nil || e.OID != examined {
		return "changed meanwhile: run gc --reclaim again"
	}
	return ""
}

// untracked leaves out of folders any that holds a tracked file: git
// lists a folder whole only when none does, and this asks again right
// before the deletion (a git add -f since, a listing git got wrong).
// One git cannot answer for is left out too.
func (m *Remover) untracked(ctx context.Context, dir string, folders []string) []string {
	out := []string{}
	for _, f := range folders {
		if tracked, err := m.Git.Index().Tracked(ctx, dir, filepath.ToSlash(f)); err == nil && !tracked {
			out = append(out, f)
		}
	}
	return out
}

// withoutMounts leaves out of folders (relative to dir) any that is or
// holds a mount point, and says why in mounted: deleting it would delete
// what is mounted there (a data set bound in, a FUSE file system), which
// is no build output. One that cannot be checked is left out too.
func withoutMounts(dir string, folders []string) (keep, mounted []string) {
	keep = []string{}
	for _, f := range folders {
		switch mp, err := fsutil.MountUnder(filepath.Join(dir, f)); {
		case err != nil:
			mounted = append(mounted, fmt.Sprintf("%s (cannot tell whether a file system is mounted in it: %v)", f, fsutil.UnwrapPathErr(err)))
		case mp != "":
			mounted = append(mounted, fmt.Sprintf("%s (a file system is mounted at %s: unmount it first)", f, mp))
		default:
			keep = append(keep, f)
		}
	}
	return keep, mounted
}

// noteReclaimed records in the task's record that its build output went,
// and logs it.
func (m *Remover) noteReclaimed(ctx context.Context, e *record.Entry, bytes int64) {
	now := time.Now().UTC()
	err := m.Update(ctx, e, func(r *record.Record) error {
		prior := int64(0)
		if r.Reclaimed != nil {
			prior = r.Reclaimed.Bytes
		}
		r.Reclaimed = &record.Reclaimed{At: now, Bytes: prior + bytes}
		return nil
	})
	if err != nil {
		m.Warn("reclaimed %s in %s but could not note it in the record of task %q: %v", settings.FormatSize(bytes), e.Record.Path, e.Record.Task, err)
	}
	m.LogEvent(e.Record, "reclaimed", fmt.Sprintf("deleted the build output (%s)", settings.FormatSize(bytes)))
}

// lastUse is when the task was last used: the later of git-wt's last
// access and the worktree's last activity.
func lastUse(lastAccess, activity time.Time) time.Time {
	if activity.After(lastAccess) {
		return activity
	}
	return lastAccess
}

// notIdle says why a task last used at used is not idle for after at now
// ("" when it is): "active 2h ago (wt.reclaimAfter 3d)".
func notIdle(used, now time.Time, after time.Duration) string {
	if idle := now.Sub(used); idle < after {
		return fmt.Sprintf("active %s ago (wt.reclaimAfter %s)", settings.FormatDuration(max(idle, 0)), settings.FormatDuration(after))
	}
	return ""
}
