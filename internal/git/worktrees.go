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
