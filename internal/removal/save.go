package removal

import (
	"cmp"
	"context"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/saved"
	"github.com/git-wt/git-wt/internal/task"
)

// Before a removal discards what is in no commit — uncommitted changes,
// untracked files git does not ignore, commits of a branch it deletes
// that are merged nowhere and on no remote — it saves them (SPEC §20),
// through internal/saved, before anything is destroyed; a save that
// fails refuses the removal. Only a forced removal can discard any of
// these (without --force rm refuses a dirty worktree and keeps an
// unmerged branch), so only a forced one looks: it stages the worktree's
// files (one git add -A into a copy of its index, cheaper than the status
// it stands for: a new worktree's racily clean index makes a status read
// every file), asks git diff-index whether that is HEAD's tree and writes
// the tree only when it is not, and counts the branch's own commits, all
// started beside rm's other questions; when the files are HEAD's and no
// commit is lost, nothing more happens and nothing is written.

// saves says whether a removal with options o saves what it discards.
func saves(o RemoveOptions) bool { return o.Force && !o.DryRun }

// startSnapshot starts writing the tree of the files of the worktree at
// path, when a forced removal may discard them and they are not its
// HEAD's ("" for none: not a folder, or HEAD's files).
func (m *Remover) startSnapshot(ctx context.Context, path string, o RemoveOptions) func() (string, error) {
	st, err := os.Lstat(path)
	now := saves(o) && err == nil && st.IsDir()
	return early(now, func() (string, error) {
		if !now {
			return "", nil
		}
		return saved.Of(m.Git, m.Repo).ChangedTree(ctx, path)
	})
}

// saveDiscarded saves what the removal r is about to discard, if
// anything: the worktree's files when their tree is not HEAD's (or could
// not be written: a folder git lost, saved over the branch's tip), the
// branch's commits when it goes with unmerged ones.
func (m *Remover) saveDiscarded(ctx context.Context, rec *record.Record, wts []git.Worktree, o RemoveOptions, r *Removal, snapshot func() (string, error), unmerged func() (int, error)) error {
	if !saves(o) {
		return nil
	}
	store := saved.Of(m.Git, m.Repo)
	d := saved.Discard{Info: m.discardInfo(rec, o), Head: r.branchSHA}
	if wt := task.FindWorktree(wts, rec.Path); wt != nil && wt.Head != "" {
		d.Head = wt.Head
	}
	if r.WorktreeOutcome == Deleted {
		tree, err := snapshot()
		switch {
		case err != nil:
			d.Dir = rec.Path // Save tries again over d.Head, and saves only a change
		case tree != "": // not HEAD's
			d.Dir, d.Tree = rec.Path, tree
		}
	}
	if r.BranchOutcome == Deleted && !o.KeepUnmerged && o.MergedTip == "" {
		if n, err := unmerged(); err != nil || n > 0 {
			d.Tip, d.Info.Commits = r.branchSHA, n
		}
	}
	if d.Dir == "" && d.Tip == "" {
		return nil // nothing in no commit: nothing written
	}
	e, err := store.Save(ctx, d, time.Now())
	if err == nil && e == nil {
		return nil // the files were the commit's after all
	}
	if err != nil {
		reason := "save-failed" // kind dirty: changes would be lost
		if d.Dir == "" {
			reason = "save-commits-failed" // kind unmerged
		}
		return m.Refuse(rec, reason, "cannot save the changes of %s before removing it (%v), so nothing was removed: commit or copy what you need, then git wt rm --force again", rec.Path, err)
	}
	r.Saved = e.ID
	m.LogEvent(rec, "saved", "as "+e.ID+": git wt restore "+e.ID+" brings it back")
	return nil
}

// discardInfo is the info blob of a state rec's removal saves.
func (m *Remover) discardInfo(rec *record.Record, o RemoveOptions) saved.Info {
	host, _ := os.Hostname()
	return saved.Info{
		Task: rec.Task, Slug: rec.Slug, Branch: rec.Branch, Base: rec.Base, Path: rec.Path,
		Why: cmp.Or(o.Why, "rm --force"),
		By:  saved.By{User: userName(), Host: host, PID: os.Getpid(), Command: commandLine()},
	}
}

// userName is the user running git-wt: the login name, else the uid.
func userName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return strconv.Itoa(os.Getuid())
}

// commandLine is the command that removed the task, bounded.
func commandLine() string {
	line := strings.Join(os.Args, " ")
	if len(line) > 1024 {
		line = strings.ToValidUTF8(line[:1024], "")
	}
	return line
}
