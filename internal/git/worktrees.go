package git

import (
	"context"
	"path/filepath"
	"strings"
	"time"
)

// Worktree is one entry of `git worktree list --porcelain`.
type Worktree struct {
	Path       string
	Head       string // commit id; empty for an unborn branch
	Branch     string // full ref name; empty when detached
	Detached   bool
	Bare       bool
	Locked     bool
	LockReason string
	Prunable   bool
}

// Worktrees lists the worktrees git knows of; the main one comes first.
func (r *Runner) Worktrees(ctx context.Context, dir string) ([]Worktree, error) {
	args := []string{"worktree", "list", "--porcelain"}
	sep := "\n"
	if r.version.AtLeast(Version{2, 36}) {
		// -z keeps a lock reason with a newline in one field.
		args = append(args, "-z")
		sep = "\x00"
	}
	out, err := r.ReadWorktrees(ctx, dir, args...)
	if err != nil {
		return nil, err
	}
	return parseWorktrees(out, sep), nil
}

// WorktreesOf lists the worktrees of another repository than the one
// git-wt runs in, whose common dir is commonDir (list --machine, SPEC §20):
// git pinned to that git dir (GIT_DIR: nothing around the folder it runs
// in is looked at) and reading only (GIT_OPTIONAL_LOCKS=0). Its git's
// version is not known, so the listing is read without -z.
func (r *Runner) WorktreesOf(ctx context.Context, commonDir string) ([]Worktree, error) {
	out, err := r.Exec(ctx, Cmd{Dir: commonDir, Env: []string{"GIT_DIR=" + commonDir, "GIT_OPTIONAL_LOCKS=0"},
		Args: []string{"worktree", "list", "--porcelain"}})
	if err != nil {
		return nil, err
	}
	return parseWorktrees(string(out), "\n"), nil
}

// ReadWorktrees runs a read-only git command that reads every worktree
// (`worktree list`, `for-each-ref` with %(worktreepath)). git 2.39 fails
// such a command while another process is half-way through `git worktree
// add` ("failed to read .git/worktrees/x/commondir"); since it only reads,
// a failure is worth a few quick retries.
func (r *Runner) ReadWorktrees(ctx context.Context, dir string, args ...string) (string, error) {
	var out string
	var err error
	for attempt, delay := 0, 10*time.Millisecond; attempt < 6; attempt, delay = attempt+1, delay*2 {
		if out, err = r.Run(ctx, dir, args...); err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(delay)
	}
	return out, err
}

func parseWorktrees(out, sep string) []Worktree {
	var wts []Worktree
	var cur *Worktree
	for _, line := range strings.Split(out, sep) {
		key, value, _ := strings.Cut(line, " ")
		if key == "worktree" {
			wts = append(wts, Worktree{Path: filepath.Clean(value)})
			cur = &wts[len(wts)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = value
		case "branch":
			cur.Branch = value
		case "detached":
			cur.Detached = true
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked = true
			cur.LockReason = value
		case "prunable":
			cur.Prunable = true
		}
	}
	return wts
}

// AddWorktree registers a worktree at path, detached at commit and not
// checked out (CheckOutBranch does that). LC_ALL=C: the lock reason git
// writes while it adds ("initializing") is then the same in every
// language, so that a repair can tell it.
func (r *Runner) AddWorktree(ctx context.Context, mainDir, path, commit string) error {
	_, err := r.Exec(ctx, Cmd{Dir: mainDir, Env: []string{"LC_ALL=C"},
		Args: []string{"worktree", "add", "--no-checkout", "--detach", "--", path, commit}})
	return err
}

// RemoveWorktree removes the worktree at path and its admin entry, even
// when it is dirty or locked: the caller decided.
func (r *Runner) RemoveWorktree(ctx context.Context, mainDir, path string) error {
	_, err := r.Run(ctx, mainDir, "worktree", "remove", "--force", "--force", path)
	return err
}

// RemoveCleanWorktree removes the worktree at path and its admin entry as
// plain `git worktree remove` does: git itself refuses a dirty worktree
// (untracked files count), a locked one, and one with submodules, and
// deletes no branch. For worktrees git-wt did not make (gc --foreign).
func (r *Runner) RemoveCleanWorktree(ctx context.Context, mainDir, path string) error {
	_, err := r.Run(ctx, mainDir, "worktree", "remove", "--", path)
	return err
}

// MoveWorktree moves the worktree at from to to (a rename, with git's
// admin entry following), refusing a locked worktree or a to that exists.
func (r *Runner) MoveWorktree(ctx context.Context, mainDir, from, to string) error {
	_, err := r.Run(ctx, mainDir, "worktree", "move", "--", from, to)
	return err
}

// LockWorktree locks the worktree at path with reason ("" for none).
func (r *Runner) LockWorktree(ctx context.Context, mainDir, path, reason string) error {
	args := []string{"worktree", "lock", path}
	if reason != "" {
		args = append(args, "--reason", reason)
	}
	_, err := r.Run(ctx, mainDir, args...)
	return err
}

// UnlockWorktree unlocks the worktree at path.
func (r *Runner) UnlockWorktree(ctx context.Context, mainDir, path string) error {
	_, err := r.Run(ctx, mainDir, "worktree", "unlock", "--", path)
	return err
}

// PointHead points the HEAD of the worktree at dir at ref (a full ref)
// and changes no file.
func (r *Runner) PointHead(ctx context.Context, dir, ref string) error {
	_, err := r.RunIn(ctx, dir, "symbolic-ref", "HEAD", ref)
	return err
}

// CheckOutAround writes the files of ref into the worktree at dir as a
// one-tree `read-tree -m -u` does: git refuses, writing nothing, where an
// untracked file stands at a path ref tracks, so nobody's file is ever
// overwritten; HEAD is left alone.
func (r *Runner) CheckOutAround(ctx context.Context, dir, ref string) error {
	_, err := r.RunIn(ctx, dir, "read-tree", "-m", "-u", "--no-recurse-submodules", ref)
	return err
}

// CheckOutTree makes the index and files of the worktree at dir those of
// ref, overwriting what an interrupted checkout left, and leaves HEAD
// alone (unlike reset); submodules are not touched.
func (r *Runner) CheckOutTree(ctx context.Context, dir, ref string) error {
	_, err := r.RunIn(ctx, dir, "read-tree", "--reset", "-u", "--no-recurse-submodules", ref)
	return err
}
