package pool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// gitStatusOptions is how an entry is checked for changes: as a task is
// (SPEC §7), whatever the user's status.* settings say.
var gitStatusOptions = git.StatusOptions{}

// Drained is what happened to one entry a drain looked at.
type Drained = record.PoolDrained

// The outcomes of a drain.
const (
	Removed     = "removed"
	Kept        = "kept"
	Gone        = "gone" // claimed or drained meanwhile
	WouldRemove = "would remove"
	WouldKeep   = "would keep"
)

// DrainOptions say which entries a drain removes, and how.
type DrainOptions struct {
	// Force removes dirty and locked entries too, and, in a drain of
	// every entry, the folders in the pool folder that no entry owns
	// (a drain without it dropped their refs).
	Force  bool
	DryRun bool                         // say what would go, remove nothing
	Keep   func(*record.PoolEntry) bool // the entries to leave; nil: none
	Reason string                       // why they go, for the report
}

// Drain removes the ready entries that o.Keep does not keep. A dirty or
// locked entry, or one not where its ref says, loses its ref but keeps
// its worktree unless o.Force (doctor then reports it); one in the pool
// folder of an earlier wt.baseDir keeps its ref too, so that it stays
// the pool's own.
func (p *Pool) Drain(ctx context.Context, o DrainOptions) ([]Drained, error) {
	items, err := p.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := []Drained{}
	for i := range items {
		it := &items[i]
		// An entry not ready yet is the running fill's (or, left by a
		// killed one, doctor's and the next fill's).
		if it.Err != nil || !it.Entry.Ready || (o.Keep != nil && o.Keep(it.Entry)) {
			continue
		}
		out = append(out, p.drainOne(ctx, it, o))
	}
	if o.Force && o.Keep == nil && !o.DryRun {
		out = append(out, p.drainUnowned(ctx, items)...)
	}
	return out, nil
}

// drainOne removes one entry, or says whether it would.
func (p *Pool) drainOne(ctx context.Context, it *record.PoolItem, o DrainOptions) Drained {
	d := Drained{ID: it.ID, Path: it.Entry.Path, Outcome: Removed, Reason: o.Reason}
	if o.DryRun {
		l, ok := p.holdEntry(it.ID)
		if !ok {
			d.Outcome, d.Err = WouldKeep, errEntryBusy(it.Entry.Path)
			return d
		}
		defer l.Release()
		d.Outcome = WouldRemove
		if why := p.keepReason(ctx, it); why != "" && !o.Force {
			d.Outcome, d.Err = WouldKeep, kept(it.Entry.Path, why)
		}
		return d
	}
	switch err := p.drop(ctx, it, o.Force); {
	case errors.Is(err, git.ErrStale):
		d.Outcome = Gone
	case err != nil:
		d.Outcome, d.Err = Kept, err
	}
	return d
}

// drainUnowned removes, for a forced drain of every entry, the folders
// in the pool folder that no entry of items owns: the worktrees of dirty
// entries an earlier drain or claim dropped, which only a person could
// otherwise remove. One a fill or a claim is working on is left alone:
// skipped when an entry owns it now, else kept (drain again).
func (p *Pool) drainUnowned(ctx context.Context, items []record.PoolItem) []Drained {
	owned := map[string]bool{}
	for _, it := range items {
		if it.Entry != nil {
			owned[fsutil.PathKey(it.Entry.Path)] = true
		}
	}
	dirs, _ := os.ReadDir(p.Folder())
	var out []Drained
	for _, dir := range dirs {
		path := filepath.Join(p.Folder(), dir.Name())
		if owned[fsutil.PathKey(path)] {
			continue
		}
		d := Drained{ID: dir.Name(), Path: path, Outcome: Removed}
		switch err := p.removeOrphan(ctx, path, true); {
		case errors.Is(err, task.ErrMovedOn) && p.Owns(ctx)(path):
			continue // a fill made it meanwhile
		case errors.Is(err, task.ErrMovedOn):
			d.Outcome = Kept
			d.Err = exitcode.RefusedAs(exitcode.KindBusy, "pool folder %s was left: a fill or a claim is at work in the pool; drain again once it is done", path)
		case err != nil:
			d.Outcome, d.Err = Kept, err
		}
		out = append(out, d)
	}
	return out
}

// keepReason says why a drain without force keeps the entry ("" when it
// may go): its ref names a folder that is no pool folder of this
// repository, or the worktree is unfit.
func (p *Pool) keepReason(ctx context.Context, it *record.PoolItem) string {
	if !p.ownFolder(it.Entry.Path) {
		return "it is not in the pool folder " + p.Folder()
	}
	return p.unfit(ctx, it.Entry.Path)
}

// drop removes an entry. Without force, one that keepReason keeps only
// loses its ref (one of an earlier base dir's pool folder not even that):
// its worktree stays for doctor, and an exitcode error says why.
// Otherwise the entry is first marked not ready (compare and swap: an
// entry a claim took meanwhile is left alone, git.ErrStale), so that a
// removal killed half way leaves an entry no claim takes and that doctor
// and the next fill finish removing; then its worktree goes, then its
// ref. What is left of the wt.poolInit of an entry not ready is ended
// first.
func (p *Pool) drop(ctx context.Context, it *record.PoolItem, force bool) error {
	l, ok := p.holdEntry(it.ID)
	if !ok {
		return errEntryBusy(it.Entry.Path)
	}
	defer l.Release()
	p.endInit(it.Entry)
	if !force {
		if why := p.keepReason(ctx, it); why != "" {
			if !p.formerEntryFolder(it.Entry.Path) {
				if err := p.Store.DeletePool(ctx, it); err != nil {
					return err
				}
			}
			return kept(it.Entry.Path, why)
		}
	}
	if it.Entry.Ready {
		it.Entry.Ready = false
		if err := p.Store.SavePool(ctx, it); err != nil {
			return err
		}
		task.Checkpoint(ctx, "pool:dropping")
	}
	if err := p.removeFolder(ctx, it.Entry.Path, true); err != nil {
		return err
	}
	if err := p.Store.DeletePool(ctx, it); err != nil {
		return err
	}
	os.Remove(p.entryLock(it.ID)) // held, and with the ref gone no claim takes it now
	return nil
}

// endInit ends the process group of the wt.poolInit that an entry not
// ready names (SPEC §15), when the fill that made it is dead: killed
// together with its supervisor, it left the group running. A finished
// entry names none; a group named by a fill on another host is no
// group of this one.
func (p *Pool) endInit(e *record.PoolEntry) {
	if e.Ready || e.Init.PGID <= 0 || e.Init.Status != record.InitRunning {
		return
	}
	if proc.Check(task.OwnerID(e.Owner())) != proc.Dead {
		return
	}
	switch ended, err := task.InitGroup(e.Init, e.Owner(), e.Path).End(); {
	case err != nil:
		p.Warn("pool entry %s names a wt.poolInit that may have outlived its fill, but %v", e.ID, err)
	case ended:
		p.Warn("ended the wt.poolInit of pool entry %s, which outlived its fill (process group %d)", e.ID, e.Init.PGID)
	}
}

// removeFolder removes a pool folder and its admin entry, unless unfit
// says it must stay.
func (p *Pool) removeFolder(ctx context.Context, path string, force bool) error {
	if !p.ownFolder(path) {
		return exitcode.Refusedf("pool entry %s is not in the pool folder %s: left alone (remove it yourself)", path, p.Folder())
	}
	if !force {
		if why := p.unfit(ctx, path); why != "" {
			return kept(path, why)
		}
	}
	return p.DropWorktree(ctx, path)
}

// kept is the refusal of a removal that left the entry at path in place.
func kept(path, why string) error {
	return exitcode.RefusedAs(exitcode.KindDirty, "pool entry %s was kept: %s (git wt pool --drain --force removes it)", path, why)
}

// isEntryFolder says whether path is a folder directly in the pool folder
// (or in an earlier git-wt's, for an entry made there): the only places
// git-wt removes an entry from.
func (p *Pool) isEntryFolder(path string) bool {
	dir := filepath.Dir(path)
	return dir == p.Folder() || dir == p.plainFolder()
}

// formerEntryFolder says whether path is an entry of the pool folder of
// an earlier wt.baseDir: directly in another folder named as the pool
// folder is, and a worktree of this repository (or gone). Such an entry
// is never handed out, but it is the pool's own to remove.
func (p *Pool) formerEntryFolder(path string) bool {
	if name := filepath.Base(filepath.Dir(path)); name != place.PoolDir && name != filepath.Base(p.Folder()) || p.isEntryFolder(path) {
		return false
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	linked, _ := git.LinkedWorktree(path, p.Repo.CommonDir)
	return linked
}

// ownFolder says whether path is an entry folder the pool may remove.
func (p *Pool) ownFolder(path string) bool {
	return p.isEntryFolder(path) || p.formerEntryFolder(path)
}

// unfit says why the worktree at path may not be handed out or removed
// without force ("" when it may): it is missing, not a worktree of this
// repository, locked, holds an initialised submodule, or is dirty.
func (p *Pool) unfit(ctx context.Context, path string) string {
	linked, submodules := git.LinkedWorktree(path, p.Repo.CommonDir)
	switch {
	case !linked:
		return "it is not a worktree of this repository where its ref says"
	case submodules:
		return "a submodule was initialised in it"
	}
	if locked, reason := git.WorktreeLock(path); locked {
		return fmt.Sprintf("it is locked (%s)", reason)
	}
	st, err := p.Git.Status(ctx, path, gitStatusOptions)
	switch {
	case err != nil:
		return fmt.Sprintf("git status failed in it (%v)", err)
	case len(st.Entries) > 0:
		return fmt.Sprintf("it has %d changed or untracked files", len(st.Entries))
	}
	return ""
}

// MakeRoom drains entries, oldest first, until dir's file system has need
// bytes free (a dirty or locked entry is skipped, as a drain skips it); it
// says whether it removed any.
func (p *Pool) MakeRoom(ctx context.Context, dir string, need int64) bool {
	removed := false
	for _, d := range p.drainOldest(ctx, false, "", func(int64) bool {
		free, err := fsutil.FreeSpace(dir)
		return err != nil || free >= need
	}) {
		if d.Outcome == Removed {
			p.Warn("removed pool entry %s to make room", d.Path)
			removed = true
		}
	}
	return removed
}

// Shrink drains entries, oldest first, until by bytes are freed, for
// wt.maxTotalSize, and says what it did (with dryRun: would do).
func (p *Pool) Shrink(ctx context.Context, by int64, dryRun bool) []Drained {
	return p.drainOldest(ctx, dryRun, "wt.maxTotalSize", func(freed int64) bool { return freed >= by })
}

// Size is the disk the entries take.
func (p *Pool) Size(ctx context.Context) int64 {
	items, err := p.Entries(ctx)
	if err != nil {
		return 0
	}
	var n int64
	for _, it := range items {
		if it.Err == nil && p.ownFolder(it.Entry.Path) {
			n += fsutil.DiskUsage(it.Entry.Path)
		}
	}
	return n
}

// drainOldest drains ready entries, oldest first, until enough says the
// bytes freed so far (or, in a dry run, that would be) are enough, and
// says what it did to each it looked at.
func (p *Pool) drainOldest(ctx context.Context, dryRun bool, reason string, enough func(freed int64) bool) []Drained {
	items, err := p.Entries(ctx) // by id: oldest first
	if err != nil {
		return nil
	}
	var freed int64
	var out []Drained
	for i := range items {
		if enough(freed) {
			break
		}
		it := &items[i]
		if it.Err != nil || !it.Entry.Ready || !p.ownFolder(it.Entry.Path) {
			continue
		}
		size := fsutil.DiskUsage(it.Entry.Path)
		d := p.drainOne(ctx, it, DrainOptions{DryRun: dryRun, Reason: reason})
		if d.Outcome == Removed || d.Outcome == WouldRemove {
			d.Size = size
			freed += size
		}
		out = append(out, d)
	}
	return out
}
