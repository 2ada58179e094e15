package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Crash repair never guesses (SPEC §7): a repair claims the record it
// examined by compare-and-swap against that record's blob id before it
// changes anything, so a task that moved on meanwhile (a new that
// finished while gc looked) is left alone; and a rollback never deletes
// content.

// RepairStuckCreation ends a creation whose process died: rolled back
// (worktree, new branch, record) when the worktree holds nothing but its
// checkout, else marked failed and kept. A setup run again on a task that
// existed before (git wt init) is never rolled back: it is marked failed,
// and git wt init retries it. force does not change this: a rollback
// never deletes content.
func (m *Handler) RepairStuckCreation(ctx context.Context, e *record.Entry) error {
	owner := *e.Record // the claim signs the record as this process: the messages name the owner
	if err := m.ClaimForRepair(ctx, e); err != nil {
		return err
	}
	stopped := task.HowStopped(&owner, proc.Check(task.Owner(&owner)))
	m.EndLeftoverInit(e.Record)
	rec := e.Record
	if err := m.finishKilledAdd(ctx, rec); err != nil {
		return err
	}
	if rec.Init.Rerun {
		return m.MarkInterrupted(ctx, e, fmt.Sprintf("git wt init was stopped (%s)", stopped))
	}
	state := rec.State
	trees := creationTrees(rec)
	n, err := m.foreignContent(ctx, rec.Path, state, trees)
	switch {
	case err != nil:
		return m.MarkInterrupted(ctx, e, fmt.Sprintf("the creation was stopped (%s) and what its worktree holds cannot be read (%v), so it was kept", stopped, err))
	case n > 0:
		if state == record.Creating { // initializing and later: the checkout was done
			m.FinishKeptCheckout(ctx, rec)
		}
		return m.MarkInterrupted(ctx, e, fmt.Sprintf("the creation was stopped (%s) and its worktree holds %d %s that the checkout did not write, so it was kept", stopped, n, text.Plural(n, "file", "files")))
	}
	task.Checkpoint(ctx, "repair:rollback")
	// Counted in place, but an agent may write into the worktree until it
	// is moved aside: the removal counts again in the moved folder, and
	// puts it back (the task failed, kept) if it holds such a file now.
	r := m.RemoveEntry(ctx, e, removal.RemoveOptions{Force: true, KeepUnmerged: true, Why: "the rollback of a stopped creation",
		Recheck: func(ctx context.Context, dir string) (int, error) { return m.foreignContent(ctx, dir, state, trees) }})
	if r.Err != nil && e.Record.State == record.Failed {
		// Put back and kept: the record says why the creation stopped,
		// not what the rollback wrote should it die itself.
		m.Update(ctx, e, func(rec *record.Record) error {
			rec.Init.Error = fmt.Sprintf("the creation was stopped (%s), and it was kept: %v", stopped, r.Err)
			return nil
		})
	}
	return r.Err
}

// finishKilledAdd finishes, under the lock, what a `git worktree add`
// killed before it wrote the worktree's HEAD (and maybe its .git file)
// left undone (git.FinishWorktreeAdd): the folder, which another process
// may have written into since, is a worktree on the task's branch again,
// and none of its files is touched. A folder no killed add left is not
// git-wt's to make a worktree of, and is left as it is; so is one outside
// the base dir, where git-wt adds none: a hand-edited record and admin
// entry would have it write a .git file there, which names the folder a
// worktree of this repository to every later look (SPEC §19).
func (m *Handler) finishKilledAdd(ctx context.Context, rec *record.Record) error {
	if st, err := os.Lstat(rec.Path); err != nil || !st.IsDir() || !m.InBaseDir(rec.Path) {
		return nil
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	switch wrote, err := git.FinishWorktreeAdd(m.Repo.CommonDir, rec.Path, task.BranchRef(rec.Branch)); {
	case errors.Is(err, git.ErrNoKilledAdd):
	case err != nil:
		return fmt.Errorf("cannot finish the worktree %s that a killed git worktree add left: %w", rec.Path, err)
	case wrote:
		m.LogEvent(rec, "repaired", "finished the worktree a killed git worktree add left: "+rec.Path)
	}
	return nil
}

// creationTrees are the trees a stuck creation's checkout may have
// written files of: HEAD's, and for a task made from a pool entry both
// the entry's commit and the base (the claim moves the files from one to
// the other before HEAD names the branch).
func creationTrees(rec *record.Record) []string {
	if rec.PoolCommit != "" {
		return []string{rec.PoolCommit, rec.BaseSHA}
	}
	return []string{"HEAD"}
}

// foreignContent counts the files in the worktree (at dir: in place, or
// moved aside by the rollback's removal) of a stuck creation in state
// that its checkout did not write. In state creating the checkout may
// have stopped half way (no index, or a partial one), so the files are
// compared with each of trees through an index of its own: a file missing
// is one the checkout had not written yet; one that differs from every
// tree, or that none has, is someone's work. Later (initializing) the
// checkout is complete and the worktree's own status says it.
func (m *Handler) foreignContent(ctx context.Context, dir string, state record.State, trees []string) (int, error) {
	st, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return 1, nil // a file or link where the worktree was: not ours to judge
	}
	if _, _, err := git.AdminDir(dir); err != nil {
		// No .git file (git worktree add stopped early): only an empty
		// folder is surely the checkout's.
		entries, err := os.ReadDir(dir)
		return len(entries), err
	}
	if state != record.Creating {
		return m.DirtyCount(ctx, dir)
	}
	tmp, err := m.tempDir("index-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	differs := map[string]int{} // path → in how many trees it differs
	for i, tree := range trees {
		index := filepath.Join(tmp, fmt.Sprint("index", i))
		if err := m.Git.Index().ReadTreeInto(ctx, dir, index, tree); err != nil {
			return 0, err
		}
		task.Checkpoint(ctx, "repair:index")
		status, err := m.Git.Status(ctx, dir, git.StatusOptions{Untracked: "all", Env: []string{"GIT_INDEX_FILE=" + index}})
		if err != nil {
			return 0, err
		}
		for _, e := range status.Entries {
			// The file against the tree (not the tree against HEAD,
			// which a claim's HEAD may not be yet); a missing file
			// was not written yet.
			if e.Kind == '?' || len(e.XY) == 2 && e.XY[1] != '.' && e.XY[1] != 'D' {
				differs[e.Path]++
			}
		}
	}
	n := 0
	for _, count := range differs {
		if count == len(trees) {
			n++
		}
	}
	return n, nil
}

// RepairMerge ends a merge whose process died (SPEC §7). First, what the
// merge left half written in the worktree that has the base checked out
// is taken back (TakeBackMerge), whatever the merge came to. One that
// landed (the branch is merged into its base, or the cleanup had already
// moved the worktree away) is then cleaned up as merge would have: the
// worktree if clean, the branch if that loses no commits, the record. One
// that did not land puts the task back to active, unless the worktree
// that has the base checked out is dirty or in the middle of a merge: that
// may be the merge's own half-done work, for a person to look at.
func (m *Handler) RepairMerge(ctx context.Context, e *record.Entry, wts []git.Worktree) error {
	if err := m.ClaimForRepair(ctx, e); err != nil {
		return err
	}
	rec := e.Record
	_, statErr := os.Lstat(rec.Path)
	gone := os.IsNotExist(statErr)
	landed := gone
	if !gone {
		// merge --rebase rebases the task's branch in its own worktree;
		// killed there, it left that worktree mid-rebase on a detached
		// HEAD. The rebase was the merge's (the task was in state
		// merging), so git's own abort puts the branch and the worktree
		// back as they were.
		if op := m.Git.InProgress(ctx, rec.Path); op == git.OpRebase {
			m.Git.Index().Abort(ctx, rec.Path, op)
		}
		// Merged into the branch the merge merged into (--into), which
		// may not be the base.
		target := *rec
		target.Base = rec.MergeTarget()
		merged, err := m.Merged(ctx, &target)
		if err != nil {
			return err
		}
		landed = merged
	}
	err := m.TakeBackMerge(ctx, rec, wts, func(dir string) error {
		if landed {
			return nil
		}
		if n, err := m.DirtyCount(ctx, dir); err != nil || n > 0 {
			return fmt.Errorf("%w: %s has uncommitted changes the merge may have left", task.ErrNeedsPerson, dir)
		}
		return nil
	})
	switch {
	case err != nil && !landed:
		return err
	case err != nil:
		m.Warn("the merge of %s landed, but what it left in the worktree of %s was not looked at: %v", rec.Branch, rec.MergeTarget(), err)
	}
	if gone {
		return m.RemoveForRepair(ctx, e, false)
	}
	if landed {
		if n, err := m.DirtyCount(ctx, rec.Path); err == nil && n == 0 {
			r := m.RemoveEntry(ctx, e, removal.RemoveOptions{KeepUnmerged: true})
			if exitcode.Of(r.Err) != exitcode.Refused {
				return r.Err
			}
			// Locked or in use: kept, as merge's cleanup keeps it.
		}
	}
	return m.Transition(ctx, e, record.Active, nil)
}

// RemoveOrphan removes an orphaned task (its folder gone, or git's admin
// entry gone) once it has claimed the record examined: a task that new
// made again meanwhile is left alone.
func (m *Handler) RemoveOrphan(ctx context.Context, e *record.Entry, force bool) error {
	if err := m.ClaimForRepair(ctx, e); err != nil {
		return err
	}
	return m.RemoveForRepair(ctx, e, force)
}

// tempDir makes a temporary folder in git-wt's state dir, inside the
// repository rather than the system's temp dir: a repair killed while it
// used one leaves nothing outside, and the next one deletes what such
// repairs left more than an hour ago.
func (m *Handler) tempDir(prefix string) (string, error) {
	root := m.StateDir("tmp")
	if err := os.MkdirAll(root, 0o777); err != nil {
		return "", err
	}
	if old, err := os.ReadDir(root); err == nil {
		for _, d := range old {
			if info, err := d.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(root, d.Name()))
			}
		}
	}
	return os.MkdirTemp(root, prefix)
}
