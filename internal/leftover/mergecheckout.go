package leftover

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// TakeBackMerge takes back what a merge of rec's branch, killed while git
// wrote the merged files into the worktree that has the branch it merged
// into checked out (rec's base, or --into's: MergeTarget), left there (takeBackCheckout), and then runs check (when not nil)
// on that worktree, all under the lock of merges into the base: a live
// merge into the same base may be writing its files there right now, and
// they are its own, not this one's leftovers. Every way a task left in
// state merging ends (its repair, rm, rm --force) takes them back first:
// once the task is gone, nothing tells them from the user's files. With no
// worktree on the base there is nothing to take back; one in the middle
// of a merge or rebase is left alone (task.ErrNeedsPerson).
func (m *Sweeper) TakeBackMerge(ctx context.Context, rec *record.Record, wts []git.Worktree, check func(dir string) error) error {
	wt := worktreeOnBranch(wts, rec.MergeTarget())
	if wt == nil {
		return nil
	}
	l, err := m.MergeLock(ctx, rec.MergeTarget())
	if err != nil {
		return err
	}
	defer l.Release()
	if op := m.Git.InProgress(ctx, wt.Path); op != "" {
		return fmt.Errorf("%w: %s is in the middle of %s", task.ErrNeedsPerson, wt.Path, op)
	}
	m.clearStaleLocksIn(rec, wt.Path) // the killed git merge's index.lock
	if err := m.takeBackCheckout(ctx, wt.Path, rec); err != nil {
		m.Warn("cannot take back what the merge of %s left in %s: %v", rec.Branch, wt.Path, err)
	}
	if check == nil {
		return nil
	}
	return check(wt.Path)
}

// takeBackCheckout takes back what a merge killed while git wrote the
// merged files into dir (the worktree that has the base checked out) left
// there: new files, untracked (git had not written its index yet) or
// staged (it had, but not moved the branch; or a squash not yet
// committed). A file is the merge's only if its content is the blob at
// its path in the task's branch, or in the commit the merge merged (the
// branch may have moved on since), which keep it: such a file is unstaged
// and deleted, and nothing is lost. Anything else stays as it is.
func (m *Sweeper) takeBackCheckout(ctx context.Context, dir string, rec *record.Record) error {
	st, err := m.Git.Status(ctx, dir, git.StatusOptions{Untracked: "all"})
	if err != nil {
		return err
	}
	var paths []string
	staged := map[string]bool{}
	for _, e := range st.Entries {
		switch {
		case e.Kind == '?' && !strings.HasSuffix(e.Path, "/"): // a file, not a repository inside
			paths = append(paths, e.Path)
		case e.Kind == '1' && e.XY == "A.": // added, the file as staged
			paths = append(paths, e.Path)
			staged[e.Path] = true
		}
	}
	if len(paths) == 0 {
		return nil
	}
	tips := []string{task.BranchRef(rec.Branch)}
	if rec.MergeTip != "" {
		tips = append(tips, rec.MergeTip) // what the merge merged, if the branch moved on since
	}
	var wants []map[string]string
	for _, tip := range tips {
		want, err := m.Git.History().Blobs(ctx, m.Repo.MainDir, tip, paths)
		if err != nil {
			return err
		}
		wants = append(wants, want)
	}
	have, err := m.Git.Index().HashFiles(ctx, dir, paths)
	if err != nil {
		return err
	}
	var mine, unstage []string
	for _, p := range paths {
		if id := have[p]; id != "" && slices.ContainsFunc(wants, func(want map[string]string) bool { return want[p] == id }) || m.cutShort(ctx, dir, p, wants) {
			mine = append(mine, p)
			if staged[p] {
				unstage = append(unstage, p)
			}
		}
	}
	if len(unstage) > 0 {
		if err := m.Git.Index().Unstage(ctx, dir, unstage); err != nil {
			return err
		}
	}
	for _, p := range mine {
		file := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
			return err
		}
		// The folders git made for them, once empty (Remove fails else).
		for d := filepath.Dir(file); d != dir && fsutil.Within(dir, d); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	if len(mine) > 0 {
		m.LogEvent(rec, "merge-taken-back", fmt.Sprintf("%d %s the killed merge had written into %s", len(mine), text.Plural(len(mine), "file", "files"), dir))
	}
	return nil
}

// cutShort reports whether the file at path p in dir is one the killed
// git was writing: git creates a file, then writes its content, so the
// file it was killed in holds the start of the blob at p in one of wants
// (empty, or cut short). Taking it back loses nothing: the whole content
// is in that blob, which the task's branch or merge tip keeps.
func (m *Sweeper) cutShort(ctx context.Context, dir, p string, wants []map[string]string) bool {
	file := filepath.Join(dir, filepath.FromSlash(p))
	if st, err := os.Lstat(file); err != nil || !st.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, want := range wants {
		if want[p] == "" {
			continue
		}
		objs, err := m.Git.ReadObjects(ctx, m.Repo.MainDir, want[p])
		if err == nil && len(objs) == 1 && len(data) < len(objs[0].Data) && bytes.HasPrefix(objs[0].Data, data) {
			return true
		}
	}
	return false
}

// worktreeOnBranch is the worktree that has ref checked out, if any.
func worktreeOnBranch(wts []git.Worktree, ref string) *git.Worktree {
	for i := range wts {
		if wts[i].Branch == ref {
			return &wts[i]
		}
	}
	return nil
}
