package pool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// gitStatusOptions is how an entry is checked for changes: as a task is
// (SPEC §7), whatever the user's status.* settings say.
var gitStatusOptions = git.StatusOptions{}

// Drained is what happened to one entry a drain looked at.
type Drained struct {
	ID      string
	Path    string
	Outcome string // removed, kept, gone
	Err     error  // why it was kept
}

// Drain removes entries: every one, or those keep rejects (nil keeps
// none). A dirty or locked entry, or one not where its ref says, loses its
// ref but keeps its worktree unless force (doctor then reports it).
func (p *Pool) Drain(ctx context.Context, force bool, keep func(*record.PoolEntry) bool) ([]Drained, error) {
	items, err := p.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := []Drained{}
	for i := range items {
		it := &items[i]
		// An entry not ready yet is the running fill's (or, left by a
		// killed one, doctor's and the next fill's).
		if it.Err != nil || !it.Entry.Ready || (keep != nil && keep(it.Entry)) {
			continue
		}
		d := Drained{ID: it.ID, Path: it.Entry.Path, Outcome: "removed"}
		switch err := p.drop(ctx, it, force); {
		case errors.Is(err, git.ErrStale):
			d.Outcome = "gone" // claimed or drained meanwhile
		case err != nil:
			d.Outcome, d.Err = "kept", err
		}
		out = append(out, d)
	}
	return out, nil
}

// drop removes an entry. Without force, one that is unfit (dirty,
// locked, not where an entry belongs) only loses its ref: its worktree
// stays for doctor, and an exitcode error says why. Otherwise the entry is
// first marked not ready (compare and swap: an entry a claim took
// meanwhile is left alone, git.ErrStale), so that a removal killed half
// way leaves an entry no claim takes and that doctor and the next fill
// finish removing; then its worktree goes, then its ref.
func (p *Pool) drop(ctx context.Context, it *record.PoolItem, force bool) error {
	if !force {
		if why := p.fit(ctx, it); why != "" {
			if err := p.Store.DeletePool(ctx, it); err != nil {
				return err
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
	os.Remove(p.entryLock(it.ID)) // a claim's, had one tried it: no claim takes it now
	return nil
}

// removeFolder removes a pool folder and its admin entry, unless unfit
// says it must stay.
func (p *Pool) removeFolder(ctx context.Context, path string, force bool) error {
	if !p.isEntryFolder(path) {
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
	return p.drainOldest(ctx, func(int64) bool {
		free, err := fsutil.FreeSpace(dir)
		return err != nil || free >= need
	})
}

// Shrink drains entries, oldest first, until by bytes are freed.
func (p *Pool) Shrink(ctx context.Context, by int64) {
	p.drainOldest(ctx, func(freed int64) bool { return freed >= by })
}

// Size is the disk the entries take.
func (p *Pool) Size(ctx context.Context) int64 {
	items, err := p.Entries(ctx)
	if err != nil {
		return 0
	}
	var n int64
	for _, it := range items {
		if it.Err == nil && p.isEntryFolder(it.Entry.Path) {
			n += fsutil.DiskUsage(it.Entry.Path)
		}
	}
	return n
}

// drainOldest removes entries, oldest first, until enough says the bytes
// freed so far are enough; it says whether it removed any.
func (p *Pool) drainOldest(ctx context.Context, enough func(freed int64) bool) bool {
	items, err := p.Entries(ctx) // by id: oldest first
	if err != nil {
		return false
	}
	var freed int64
	removed := false
	for i := range items {
		if enough(freed) {
			break
		}
		it := &items[i]
		if it.Err != nil || !it.Entry.Ready || !p.isEntryFolder(it.Entry.Path) {
			continue
		}
		size := fsutil.DiskUsage(it.Entry.Path)
		if p.drop(ctx, it, false) == nil {
			p.Warn("removed pool entry %s to make room", it.Entry.Path)
			freed += size
			removed = true
		}
	}
	return removed
}
