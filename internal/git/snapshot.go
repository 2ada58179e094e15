package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// The git operations that save a worktree's whole state before git-wt
// discards it, and bring it back (SPEC §20, "Every removal can be
// undone"). Both work through an index file of their own (index), so the
// worktree's own index is never touched.

// snapshotIdentity is who the commits of saved states are by: a removal
// must not fail where the user set no user.name (the user who removed
// the task is in the state's info blob).
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=git-wt", "GIT_AUTHOR_EMAIL=git-wt@localhost",
	"GIT_COMMITTER_NAME=git-wt", "GIT_COMMITTER_EMAIL=git-wt@localhost",
}

// SnapshotTree stages every file of the worktree at dir that git does
// not ignore, untracked ones included, into the index file index (a copy
// of the worktree's index, or HEAD read into one), and writes its tree.
func (r Index) SnapshotTree(ctx context.Context, dir, index string) (string, error) {
	if err := r.stageAll(ctx, dir, index); err != nil {
		return "", err
	}
	return r.writeTree(ctx, dir, index)
}

// ChangedTree is SnapshotTree for a first look: "" when the staged files
// are those of the worktree's HEAD, which git diff-index --cached tells
// by walking HEAD's trees against the index: a fraction of what
// write-tree costs on an index that holds no trees (a fresh checkout's),
// and a look at no file. Else, the tree write-tree writes. Submodules
// count whatever submodule.<name>.ignore says: a gitlink add -A moved is a
// change.
func (r Index) ChangedTree(ctx context.Context, dir, index string) (string, error) {
	if err := r.stageAll(ctx, dir, index); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: env,
		Args: []string{"diff-index", "--cached", "--quiet", "--ignore-submodules=none", "HEAD", "--"}})
	switch {
	case err == nil:
		return "", nil
	case ExitCode(err) != 1:
		return "", err
	}
	return r.writeTree(ctx, dir, index)
}

// stageAll is git add -A into the index file index, its hidden entries
// shown first (unhide).
func (r Index) stageAll(ctx context.Context, dir, index string) error {
	env := []string{"GIT_INDEX_FILE=" + index}
	if err := r.unhide(ctx, dir, env); err != nil {
		return err
	}
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: env, Args: []string{"add", "-A"}, entersNested: true})
	return err
}

// writeTree is git write-tree of the index file index.
func (r Index) writeTree(ctx context.Context, dir, index string) (string, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_INDEX_FILE=" + index}, Args: []string{"write-tree"}})
	return strings.TrimSpace(string(out)), err
}

// unhide clears, in the index env names (a copy), the assume-unchanged
// bit of every entry and the skip-worktree bit of every entry whose file
// is on disk: git add -A does not look at a file so marked, and a local
// edit to one (a user's trick to keep it out of the way) would be in no
// saved state. A sparse checkout's absent files keep theirs (absent is not
// deleted).
func (r Index) unhide(ctx context.Context, dir string, env []string) error {
	hidden, err := r.hiddenEntries(ctx, dir, env)
	if err != nil {
		return err
	}
	var assumed, skipped strings.Builder
	for _, h := range hidden {
		switch {
		case h.assumeUnchanged:
			assumed.WriteString(h.path + "\x00")
		case present(filepath.Join(dir, filepath.FromSlash(h.path))):
			skipped.WriteString(h.path + "\x00")
		}
	}
	// One flag a call: update-index applies only the first it is given.
	for _, c := range []struct{ flag, paths string }{{"--no-assume-unchanged", assumed.String()}, {"--no-skip-worktree", skipped.String()}} {
		if c.paths == "" {
			continue
		}
		if _, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: env,
			Args: []string{"update-index", c.flag, "-z", "--stdin"}, Stdin: strings.NewReader(c.paths)}); err != nil {
			return err
		}
	}
	return nil
}

// present says whether path names something on disk (a link too).
func present(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// SnapshotFolder is SnapshotTree for a folder that is no longer a
// worktree git knows (its admin entry is gone): git runs with the common
// dir as its repository and dir as its work tree, and head is read into
// the index file first, so only the changed files are new objects.
func (r Index) SnapshotFolder(ctx context.Context, commonDir, dir, index, head string) (string, error) {
	env := []string{"GIT_DIR=" + commonDir, "GIT_WORK_TREE=" + dir, "GIT_INDEX_FILE=" + index}
	if _, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: env, Args: []string{"read-tree", head}}); err != nil {
		return "", err
	}
	// add -A looks into the repositories nested in dir (entersNested).
	if err := CheckNestedRepos(dir, index, commonDir); err != nil {
		return "", err
	}
	if _, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: env, Args: []string{"add", "-A"}}); err != nil {
		return "", err
	}
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: env, Args: []string{"write-tree"}})
	return strings.TrimSpace(string(out)), err
}

// CommitSnapshot writes a commit of tree with parents and message msg, as
// git-wt, unsigned whatever commit.gpgSign says (a removal must not wait
// for a passphrase); no ref moves.
func (r History) CommitSnapshot(ctx context.Context, dir, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-", tree)
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: snapshotIdentity, Stdin: strings.NewReader(msg), Args: args})
	return strings.TrimSpace(string(out)), err
}

// WriteFilesOf brings the files of the worktree at dir from commit from
// to commit to (`read-tree -m -u`, a two-tree merge) through the index
// file index: the worktree's own index stays at from, so what to adds
// shows as uncommitted changes, files new in to as untracked.
func (r Index) WriteFilesOf(ctx context.Context, dir, index, from, to string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_INDEX_FILE=" + index},
		Args: []string{"read-tree", "-m", "-u", "--no-recurse-submodules", from, to}})
	return err
}

// NewGitlinks lists the paths that are a gitlink (a repository of its
// own: a submodule, or a clone git add -A met inside the worktree) in
// tree to and were none in from: a saved state holds such a repository's
// commit id, never its files or its commits.
func (r History) NewGitlinks(ctx context.Context, dir, from, to string) ([]string, error) {
	out, err := r.git.Run(ctx, dir, "diff-tree", "-r", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	var paths []string
	eachRawDiff(out, func(meta []string, path string) {
		if meta[1] == "160000" && meta[0] != "160000" {
			paths = append(paths, path)
		}
	})
	return paths, nil
}

// CommitParents reads the parents of a commit object's data, in order.
func CommitParents(data []byte) []string {
	var parents []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			break // the header ends at the first blank line
		}
		if p, ok := strings.CutPrefix(line, "parent "); ok && IsObjectID(p) {
			parents = append(parents, p)
		}
	}
	return parents
}
