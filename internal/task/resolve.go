package task

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
)

// byID looks a task id (or a slug) up with one batch read of the two refs
// it may be stored under: its slug, then its slug with the collision
// suffix. It returns nil when neither holds it.
func (m *Manager) byID(ctx context.Context, id string) (*record.Entry, error) {
	cands := slug.Candidates(id)
	entries, err := m.Store.Get(ctx, cands[0], cands[1])
	if err != nil {
		return nil, err
	}
	return Pick(id, cands, entries), nil
}

// Pick chooses the record of id among those read under its candidates.
// A task id match wins over a slug match: task "fix-_bug_-123" is not task
// "fix: bug #123", whose slug it happens to be.
func Pick(id string, cands [2]string, entries []record.Entry) *record.Entry {
	for i := range entries {
		if e := &entries[i]; e.Record != nil && slug.SameID(e.Record.Task, id) {
			return e
		}
	}
	for i := range entries {
		if e := &entries[i]; errors.Is(e.Err, record.ErrFolded) {
			continue // another task's record, seen under a folded name
		}
		if e := &entries[i]; slug.SameID(e.Slug, id) || e.Err != nil && e.Slug == cands[0] {
			return e // a corrupt record under this name: report it, never overwrite it
		}
	}
	return nil
}

// Prefetch is a read of the two records a task id may be stored under,
// started from the current directory before the repository is located, so
// that the two git processes (cat-file; config or rev-parse) run side by
// side. Only when no GIT_DIR points git elsewhere.
type Prefetch struct {
	id      string
	entries *async.Value[[]record.Entry]
}

// StartPrefetch begins reading id's records from dir.
func StartPrefetch(ctx context.Context, g *git.Runner, dir, id string) *Prefetch {
	return &Prefetch{id: id, entries: async.Start(func() ([]record.Entry, error) {
		cands := slug.Candidates(id)
		return (&record.Store{Git: g, Dir: dir}).Get(ctx, cands[0], cands[1])
	})}
}

// UsePrefetch makes the next Find of p's id use what p read, when it read
// it without trouble and found the task.
func (m *Manager) UsePrefetch(p *Prefetch) { m.prefetch = p }

// prefetched is the task id names as the prefetch read it, or nil.
func (m *Manager) prefetched(id string) *record.Entry {
	p := m.prefetch
	if p == nil || p.id != id || id == "." {
		return nil
	}
	m.prefetch = nil
	entries, err := p.entries.Get()
	if err != nil {
		return nil
	}
	return Pick(id, slug.Candidates(id), entries)
}

// Unreadable is the error for a record git-wt cannot read (exit 1): doctor
// reports it, and nothing removes it.
func Unreadable(e *record.Entry) error {
	return exitcode.Failedf("%v: run git wt doctor", e.Err)
}

// Find looks up the task that arg names: a task id or slug (two ref
// reads), else a branch or a path inside its worktree ("." included),
// which take a scan of the records. A missing task is exit 5.
func (m *Manager) Find(ctx context.Context, arg string) (*record.Entry, error) {
	if arg == "" {
		return nil, exitcode.Usagef("empty task id")
	}
	if e := m.prefetched(arg); e != nil {
		return e, nil
	}
	if arg != "." {
		e, err := m.byID(ctx, arg)
		if err != nil || e != nil {
			return e, err
		}
	}
	all, err := m.Store.All(ctx)
	if err != nil {
		return nil, err
	}
	if e := byBranch(all, arg); e != nil {
		return e, nil
	}
	if e := m.byPath(all, arg); e != nil {
		return e, nil
	}
	return nil, exitcode.NotFoundf("no task %q in %s (see git wt list)", arg, m.Repo.MainDir)
}

func byBranch(all []record.Entry, arg string) *record.Entry {
	name := strings.TrimPrefix(arg, "refs/heads/")
	for i := range all {
		if all[i].Record != nil && all[i].Record.Branch == name {
			return &all[i]
		}
	}
	return nil
}

// byPath finds the task whose worktree holds the path arg; the deepest
// worktree wins (worktrees may nest). A path that does not exist (a
// worktree deleted behind git-wt's back) names the task whose recorded
// path it is exactly, with symlinks resolved in the part of it that
// exists.
func (m *Manager) byPath(all []record.Entry, arg string) *record.Entry {
	_, statErr := os.Lstat(arg)
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil
	}
	real, err := fsutil.ResolveExisting(abs)
	if err != nil {
		return nil
	}
	var best *record.Entry
	for i := range all {
		rec := all[i].Record
		if rec == nil || !(fsutil.Within(rec.Path, abs) || fsutil.Within(rec.Path, real)) {
			continue
		}
		if statErr != nil && rec.Path != abs && rec.Path != real {
			continue
		}
		if best == nil || len(rec.Path) > len(best.Record.Path) {
			best = &all[i]
		}
	}
	return best
}
