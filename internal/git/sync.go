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

// RebaseOnto replays the commits upstream..tip, in the worktree at dir, on
// a detached HEAD, onto onto. Whatever the worktree has checked out, git
// goes from there straight to onto (tip's own files are not checked out
// first), so one worktree reused for many rebases onto one base writes
// only the files that differ. --no-update-refs: a user's rebase.updateRefs
// must not move other branches (a stacked child that points into the
// range) behind git-wt's back.
func (r Index) RebaseOnto(ctx context.Context, dir, onto, upstream, tip string) error {
	_, err := r.git.RunIn(ctx, dir, "rebase", "-q", "--no-update-refs", "--onto", onto, upstream, tip)
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

// Deleted lists the tracked files missing from the worktree at dir
// (`ls-files --deleted`; a sparse checkout's files outside its patterns
// are not missing). read-tree -m -u takes a missing file for an
// unchanged one and writes it again, so sync asks before it moves files.
func (r Index) Deleted(ctx context.Context, dir string) ([]string, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_OPTIONAL_LOCKS=0"}, Args: []string{"ls-files", "--deleted", "-z"}})
	return splitNul(out), err
}

// FileChange is one file that differs between two commits: its blob
// before and after ("" where the commit lacks it).
type FileChange struct {
	Path          string
	Before, After string
}

// ChangedFiles lists the files (blobs and symbolic links; submodules left
// out) that differ between commits from and to, renames as a deletion and
// an addition.
func (r History) ChangedFiles(ctx context.Context, dir, from, to string) ([]FileChange, error) {
	out, err := r.git.Run(ctx, dir, "diff-tree", "-r", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	return parseRawDiff(out), nil
}

// parseRawDiff reads `diff-tree -r -z` output: ":<mode> <mode> <oid>
// <oid> <status>" then the path, each NUL-terminated; an all-zero oid is
// a side that lacks the path.
func parseRawDiff(out string) []FileChange {
	var changes []FileChange
	eachRawDiff(out, func(meta []string, path string) {
		if meta[0] == "160000" || meta[1] == "160000" {
			return // a submodule: read-tree --no-recurse-submodules writes none
		}
		changes = append(changes, FileChange{Path: path, Before: blobOrNone(meta[2]), After: blobOrNone(meta[3])})
	})
	return changes
}

// eachRawDiff calls f with each entry of `diff-tree -r -z` output: its
// modes, oids and status, and its path.
func eachRawDiff(out string, f func(meta []string, path string)) {
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i++ {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if !strings.HasPrefix(fields[i], ":") || len(meta) < 5 {
			continue
		}
		i++
		f(meta, fields[i])
	}
}

func blobOrNone(oid string) string {
	if strings.Trim(oid, "0") == "" {
		return ""
	}
	return oid
}

// CheckoutFiles writes the index's version of each of paths (relative to
// the worktree at dir) over what the worktree holds there
// (`checkout-index -f`): only for files git-wt knows it wrote itself.
func (r Index) CheckoutFiles(ctx context.Context, dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Stdin: strings.NewReader(strings.Join(paths, "\x00") + "\x00"),
		Args: []string{"checkout-index", "-f", "-q", "-z", "--stdin"}})
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
