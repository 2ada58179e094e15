package git

import (
	"context"
	"strings"
)

// MergeTreeVersion is the first git whose `merge-tree --write-tree` merges
// without a worktree or an index.
var MergeTreeVersion = Version{2, 38}

// MergeTree merges theirs into ours as `git merge` would, touching no
// worktree, index or ref (`git merge-tree --write-tree`, git 2.38 and
// later). It returns the merged tree, or the paths that conflict.
func (r History) MergeTree(ctx context.Context, dir, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Args: []string{
		"merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", ours, theirs,
	}})
	if err != nil && ExitCode(err) != 1 { // 1: conflicts, listed below the tree
		return "", nil, err
	}
	tree, conflicts = parseMergeTree(string(out))
	return tree, conflicts, nil
}

// parseMergeTree reads `merge-tree --write-tree --name-only -z` output: the
// tree id, then each conflicted path, each ended by a NUL.
func parseMergeTree(out string) (string, []string) {
	fields := strings.Split(out, "\x00")
	var paths []string
	for _, f := range fields[1:] {
		if f != "" {
			paths = append(paths, f)
		}
	}
	return strings.TrimSpace(fields[0]), paths
}

// MoveBranch points the branch ref at newOID if it still points at oldOID,
// with a reflog entry saying why (the user's way back). A lost race is
// ErrStale.
func (r *Runner) MoveBranch(ctx context.Context, dir, ref, newOID, oldOID, why string) error {
	_, err := r.Run(ctx, dir, "update-ref", "-m", why, ref, newOID, oldOID)
	return r.casResult(ctx, dir, ref, oldOID, err)
}

// CommitTree writes a commit of tree with parents, in that order, and
// message msg, and returns it; no ref moves.
func (r History) CommitTree(ctx context.Context, dir, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := r.git.Run(ctx, dir, append(args, "-m", msg)...)
	return strings.TrimSpace(out), err
}
