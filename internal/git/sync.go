package git

import (
	"context"
	"strings"
)

// The git operations of `git wt sync` (SPEC §12): it makes a task's new
// tip without touching its files, then moves the branch and the files.

// Containing returns which of refs have commit in their history
// (`for-each-ref --contains`): one process for any number of branches, so
// that a sync of many up-to-date tasks costs one git per base.
func (r History) Containing(ctx context.Context, dir, commit string, refs []string) (map[string]bool, error) {
	return r.refsWhere(ctx, dir, "--contains="+commit, refs)
}

// IsAncestor reports whether commit a is in the history of b (a == b
// included).
func (r History) IsAncestor(ctx context.Context, dir, a, b string) (bool, error) {
	return r.yesNo(ctx, dir, "merge-base", "--is-ancestor", a, b)
}

// RebaseOnto replays the commits upstream..HEAD of the worktree at dir, on
// a detached HEAD, onto onto. --no-update-refs: a user's rebase.updateRefs
// must not move other branches (a stacked child that points into the
// range) behind git-wt's back.
func (r Index) RebaseOnto(ctx context.Context, dir, onto, upstream string) error {
	_, err := r.git.RunIn(ctx, dir, "rebase", "-q", "--no-update-refs", "--onto", onto, upstream)
	return err
}

// MoveFiles brings the index and files of the worktree at dir from commit
// from to commit to (`read-tree -m -u`, a two-tree merge): git refuses,
// changing nothing, when a file it would change differs from from, so a
// change made meanwhile is never overwritten.
func (r Index) MoveFiles(ctx context.Context, dir, from, to string) error {
	_, err := r.git.RunIn(ctx, dir, "read-tree", "-m", "-u", "--no-recurse-submodules", from, to)
	return err
}

// IndexTree is the tree the index of the worktree at dir would commit
// (`write-tree`: it fails while the index has conflicts).
func (r Index) IndexTree(ctx context.Context, dir string) (string, error) {
	out, err := r.git.RunIn(ctx, dir, "write-tree")
	return strings.TrimSpace(out), err
}

// RemoteBranches lists the remote-tracking branches and the local
// branches that have an upstream, in one for-each-ref: a task branch
// found among them may be in other hands, and is merged, never rebased.
func (r *Runner) RemoteBranches(ctx context.Context, dir string) (tracking []string, withUpstream map[string]bool, err error) {
	lines, err := r.Lines(ctx, dir, "for-each-ref", "--format=%(refname)%00%(upstream)", "refs/heads/", "refs/remotes/")
	if err != nil {
		return nil, nil, err
	}
	withUpstream = map[string]bool{}
	for _, l := range lines {
		ref, upstream, _ := strings.Cut(l, "\x00")
		switch {
		case strings.HasPrefix(ref, "refs/remotes/"):
			tracking = append(tracking, ref)
		case upstream != "":
			withUpstream[ref] = true
		}
	}
	return tracking, withUpstream, nil
}

// Fetch fetches remote.
func (r *Runner) Fetch(ctx context.Context, dir, remote string) error {
	_, err := r.Run(ctx, dir, "fetch", "-q", "--", remote)
	return err
}
