package pool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// The pool's problems (SPEC §11, §14).
const (
	// OrphanEntry is a folder in the pool folder without a ref (a claim
	// or a drain killed after the ref went), or a ref whose worktree is
	// gone: removed when clean and older than wt.orphanGrace.
	OrphanEntry task.Kind = "orphan-pool-entry"
	// DirtyEntry is an entry that is dirty, locked, holds a submodule, or
	// is not the worktree its ref says: never handed out, removed only
	// with --force.
	DirtyEntry task.Kind = "dirty-pool-entry"
	// UnfinishedEntry is an entry a killed fill left half made.
	UnfinishedEntry task.Kind = "unfinished-pool-entry"
)

// Diagnose checks every entry and every folder in the pool folder
// against git's worktrees (wts, read before the entries: a fill adds its
// ref before its worktree, so a worktree seen has its ref in the later
// read).
func (p *Pool) Diagnose(ctx context.Context, wts []git.Worktree) []*task.Problem {
	items, err := p.Entries(ctx)
	if err != nil {
		return nil
	}
	filling := p.Filling() // after the read: a not-ready entry seen with no fill running is dead
	var problems []*task.Problem
	owned := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.Err != nil {
			problems = append(problems, &task.Problem{Kind: DirtyEntry, Ref: record.PoolRef(it.ID), Age: -1,
				Detail: fmt.Sprintf("the pool entry's ref cannot be read: %v", it.Err), Fix: ""})
			continue
		}
		owned[fsutil.PathKey(it.Entry.Path)] = true
		if pr := p.diagnoseEntry(ctx, it, filling); pr != nil {
			problems = append(problems, pr)
		}
	}
	return append(problems, p.diagnoseFolders(ctx, wts, owned)...)
}

// diagnoseEntry checks one entry that has a ref.
func (p *Pool) diagnoseEntry(ctx context.Context, it *record.PoolItem, filling bool) *task.Problem {
	e := it.Entry
	pr := &task.Problem{Path: e.Path, Ref: record.PoolRef(it.ID), Age: -1}
	switch {
	case !e.Ready:
		if filling {
			return nil // the fill running now is making it
		}
		pr.Kind, pr.Detail, pr.Fix = UnfinishedEntry, "a fill stopped before this entry was ready, or a removal before it ended", "remove it"
		pr.FixWith = func(ctx context.Context, _ bool) error { return p.repairUnfinished(ctx, it) }
		return pr
	case !p.ownFolder(e.Path):
		pr.Kind, pr.Detail = DirtyEntry, "its ref names a folder outside the pool folder "+p.Folder()+": it is never handed out"
		pr.Fix, pr.FixWith = "drop its ref (the folder stays)", func(ctx context.Context, _ bool) error { return p.Store.DeletePool(ctx, it) }
		return pr
	}
	if _, err := os.Lstat(e.Path); err != nil {
		pr.Kind, pr.Detail, pr.Missing = OrphanEntry, "the entry's folder is gone", true
		pr.Fix, pr.FixWith = "drop its ref and git's admin entry", func(ctx context.Context, _ bool) error { return p.drop(ctx, it, true) }
		return pr
	}
	l, ok := p.holdEntry(it.ID)
	if !ok {
		return nil // a claim, a drain or another check is at work on it
	}
	why, former := p.unfit(ctx, e.Path), p.formerEntryFolder(e.Path)
	l.Release()
	switch {
	case why == "" && !former:
		return nil
	case why == "":
		// Clean, in the pool folder of an earlier wt.baseDir: as an
		// orphan, it goes.
		pr.Kind, pr.Detail = OrphanEntry, "a pool entry in the pool folder of an earlier wt.baseDir: it is never handed out"
		pr.Fix, pr.FixWith = "remove it", func(ctx context.Context, _ bool) error { return p.drop(ctx, it, false) }
		return pr
	case former:
		pr.Kind, pr.Detail, pr.FixDirty = DirtyEntry, why+", in the pool folder of an earlier wt.baseDir: it is never handed out", true
		pr.Fix = "remove it only with --force"
	default:
		pr.Kind, pr.Detail, pr.FixDirty = DirtyEntry, why+": it is never handed out", true
		pr.Fix = "drop its ref; with --force also remove it"
	}
	pr.FixWith = func(ctx context.Context, force bool) error { return p.drop(ctx, it, force) }
	return pr
}

// Owns says whether a pool entry's ref names the worktree at path: it
// is the pool's own, wherever it is (doctor diagnoses it as the pool's,
// never as foreign).
func (p *Pool) Owns(ctx context.Context) func(path string) bool {
	items, _ := p.Entries(ctx)
	paths := map[string]bool{}
	for _, it := range items {
		if it.Err == nil {
			paths[fsutil.PathKey(it.Entry.Path)] = true
		}
	}
	return func(path string) bool { return paths[fsutil.PathKey(path)] }
}

// repairUnfinished removes an entry a killed fill left, holding the fill
// lock: no fill can be making it meanwhile.
func (p *Pool) repairUnfinished(ctx context.Context, it *record.PoolItem) error {
	l, ok, err := lock.TryAcquire(p.fillLock())
	if err != nil {
		return err
	}
	if !ok {
		return task.ErrMovedOn // a fill runs: it removes the entry itself
	}
	defer l.Release()
	err = p.drop(ctx, it, true)
	if errors.Is(err, git.ErrStale) {
		return task.ErrMovedOn
	}
	return err
}

// diagnoseFolders reports what is in the pool folder without a ref: a
// registered worktree or a plain folder a killed claim, drain or fill
// left, or an entry dropped from the pool as unfit.
func (p *Pool) diagnoseFolders(ctx context.Context, wts []git.Worktree, owned map[string]bool) []*task.Problem {
	// owned and registered are keyed by fsutil.PathKey: git's spelling of
	// a path and git-wt's may differ on Windows.
	registered := map[string]bool{}
	var problems []*task.Problem
	for _, wt := range wts {
		registered[fsutil.PathKey(wt.Path)] = true
		if _, err := os.Lstat(wt.Path); err == nil || owned[fsutil.PathKey(wt.Path)] || !p.Place.InPool(wt.Path) {
			continue
		}
		path := wt.Path
		problems = append(problems, &task.Problem{Kind: OrphanEntry, Path: path, Age: -1, Missing: true,
			Detail: "git's admin entry of a pool worktree whose folder is gone", Fix: "prune the admin entry",
			FixWith: func(ctx context.Context, _ bool) error { return p.removeOrphan(ctx, path, true) }})
	}
	for _, path := range p.ownFolders() {
		if owned[fsutil.PathKey(path)] {
			continue
		}
		pr := &task.Problem{Kind: OrphanEntry, Path: path, Age: folderAge(path), Fix: "remove it"}
		linked, _ := git.LinkedWorktree(path, p.Repo.CommonDir)
		why, halfRemoved := "", false
		if registered[fsutil.PathKey(path)] && linked {
			l, ok := p.holdEntry(filepath.Base(path))
			if !ok {
				continue // a claim moving it out, or a drain removing it
			}
			why = p.unfit(ctx, path)
			halfRemoved = why != "" && p.onlyFilesMissing(ctx, path)
			l.Release()
		}
		switch {
		case halfRemoved:
			// A removal killed half way: what git deleted is in git.
			pr.Detail = "a pool worktree that no pool entry owns, half removed"
			pr.FixWith = func(ctx context.Context, _ bool) error { return p.removeOrphan(ctx, path, true) }
		case !registered[fsutil.PathKey(path)] || !linked:
			// git-wt's own folder, no worktree git can work in (a fill
			// or a removal killed half way): nobody works there.
			pr.Detail = "a folder in the pool folder that no pool entry owns and that is no worktree git can use"
			pr.FixWith = func(ctx context.Context, _ bool) error { return p.removeOrphan(ctx, path, true) }
		case why == "":
			pr.Detail = "a clean pool worktree that no pool entry owns"
			pr.FixWith = func(ctx context.Context, _ bool) error { return p.removeOrphan(ctx, path, false) }
		default:
			pr.Kind, pr.Age, pr.FixDirty = DirtyEntry, -1, true
			pr.Detail = "a pool worktree that no pool entry owns any more: " + why
			pr.Fix = "remove it only with --force"
			pr.FixWith = func(ctx context.Context, force bool) error { return p.removeOrphan(ctx, path, force) }
		}
		problems = append(problems, pr)
	}
	return problems
}

// removeOrphan removes a folder of the pool folder that no entry owns,
// looking again under the fill lock (a fill may be making it) and the
// entry's lock (a claim may be moving it out).
func (p *Pool) removeOrphan(ctx context.Context, path string, force bool) error {
	for _, name := range []string{p.fillLock(), p.entryLock(filepath.Base(path))} {
		l, ok, err := lock.TryAcquire(name)
		if err != nil {
			return err
		}
		if !ok {
			return task.ErrMovedOn
		}
		defer l.Release()
	}
	defer os.Remove(p.entryLock(filepath.Base(path))) // held: no claim is on it
	items, err := p.Entries(ctx)
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Entry != nil && fsutil.SamePath(it.Entry.Path, path) {
			return task.ErrMovedOn // an entry owns it now
		}
	}
	return p.removeFolder(ctx, path, force)
}

// onlyFilesMissing says whether the only changes in the worktree at path
// are tracked files missing: what a removal killed half way leaves, whose
// content git has. Any other change may be someone's work.
func (p *Pool) onlyFilesMissing(ctx context.Context, path string) bool {
	st, err := p.Git.Status(ctx, path, gitStatusOptions)
	if err != nil || len(st.Entries) == 0 {
		return false
	}
	for _, e := range st.Entries {
		if e.Kind != '1' || e.XY != ".D" {
			return false
		}
	}
	return true
}

// folderAge is how long ago the folder changed, for wt.orphanGrace.
func folderAge(path string) time.Duration {
	st, err := os.Lstat(path)
	if err != nil {
		return -1
	}
	return time.Since(st.ModTime())
}

// ownFolders lists the folders in this repository's pool folder, and
// those in an earlier git-wt's plain .pool of a shared base dir that are
// this repository's worktrees (their .git file points into its common
// dir): another repository's entries there are never listed, so never
// judged.
func (p *Pool) ownFolders() []string {
	var paths []string
	for _, folder := range []string{p.Folder(), p.plainFolder()} {
		if folder == "" {
			continue
		}
		dirs, _ := os.ReadDir(folder)
		for _, d := range dirs {
			path := filepath.Join(folder, d.Name())
			if folder == p.Folder() || git.BelongsTo(path, p.Repo.CommonDir) {
				paths = append(paths, path)
			}
		}
	}
	return paths
}
