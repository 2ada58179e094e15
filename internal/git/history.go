package git

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ResolveCommit resolves rev in the repository at dir to a commit ("" if
// git printed none), and names the full ref it is when it is one ("" for a
// commit id or an expression).
func (r History) ResolveCommit(ctx context.Context, dir, rev string) (sha, ref string, err error) {
	lines, err := r.git.Lines(ctx, dir, "rev-parse", rev+"^{commit}", "--symbolic-full-name", rev)
	if err != nil || len(lines) == 0 {
		return "", "", err
	}
	if len(lines) > 1 && strings.HasPrefix(lines[1], "refs/") {
		ref = lines[1]
	}
	return lines[0], ref, nil
}

// Tree is the tree id of rev.
func (r History) Tree(ctx context.Context, dir, rev string) (string, error) {
	out, err := r.git.Run(ctx, dir, "rev-parse", "--verify", rev+"^{tree}")
	return strings.TrimSpace(out), err
}

// RefExists reports whether ref (a full ref) exists, reading it once
// (loose, then packed): an error is git failing otherwise.
func (r History) RefExists(ctx context.Context, dir, ref string) (bool, error) {
	return r.yesNo(ctx, dir, "rev-parse", "--verify", "-q", ref)
}

// yesNo runs a git that answers with its exit status: 0 yes, 1 no, and
// anything else is git failing.
func (r History) yesNo(ctx context.Context, dir string, args ...string) (bool, error) {
	_, err := r.git.Run(ctx, dir, args...)
	switch {
	case err == nil:
		return true, nil
	case ExitCode(err) == 1:
		return false, nil
	}
	return false, err
}

// ValidBranchName reports whether git takes name as a branch name, as it
// is: check-ref-format --branch also takes @{-N}, which it prints as the
// branch checked out N switches ago, a name of another branch.
func (r History) ValidBranchName(ctx context.Context, dir, name string) bool {
	out, err := r.git.Run(ctx, dir, "check-ref-format", "--branch", name)
	return err == nil && strings.TrimSuffix(out, "\n") == name
}

// MergeBase is the best common ancestor of a and b.
func (r History) MergeBase(ctx context.Context, dir, a, b string) (string, error) {
	out, err := r.git.Run(ctx, dir, "merge-base", a, b)
	return strings.TrimSpace(out), err
}

// LastMoved is when ref last moved, from its newest reflog entry; ok is
// false when it has none.
func (r History) LastMoved(ctx context.Context, dir, ref string) (t time.Time, ok bool) {
	out, err := r.git.Run(ctx, dir, "reflog", "show", "-1", "--date=unix", "--format=%gd", ref, "--")
	if err != nil {
		return time.Time{}, false
	}
	return parseReflogDate(out)
}

// parseReflogDate reads "refs/heads/wt/x@{1795350689}".
func parseReflogDate(out string) (time.Time, bool) {
	_, stamp, _ := strings.Cut(strings.TrimSpace(out), "@{")
	sec, err := strconv.ParseInt(strings.TrimSuffix(stamp, "}"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// Subjects are the subjects of the commits in revs (a range), oldest
// first.
func (r History) Subjects(ctx context.Context, dir, revs string) ([]string, error) {
	return r.git.Lines(ctx, dir, "log", "--reverse", "--format=%s", revs, "--")
}

// Message is the whole message of commit rev.
func (r History) Message(ctx context.Context, dir, rev string) (string, error) {
	out, err := r.git.Run(ctx, dir, "log", "-1", "--format=%B", rev, "--")
	return strings.TrimSpace(out), err
}

// TreeFiles lists the files of rev's tree with their sizes in bytes
// (submodules have none), for an estimate of a checkout.
func (r History) TreeFiles(ctx context.Context, dir, rev string) ([]int64, error) {
	out, err := r.git.Run(ctx, dir, "ls-tree", "-r", "-l", "-z", "--full-tree", rev)
	if err != nil {
		return nil, err
	}
	return parseTreeSizes(out), nil
}

// SparseTreeFiles is TreeFiles for a cone-mode sparse checkout of dirs:
// the files under each directory, and those at the root and directly in
// each of their parents, which cone mode writes too. Only those files'
// sizes are read: in a large tree, reading every blob's size takes far
// longer than checking out a few directories.
func (r History) SparseTreeFiles(ctx context.Context, dir, rev string, dirs []string) ([]int64, error) {
	kept, parents := coneDirs(dirs)
	under := []string{"-r", rev, "--"}
	for _, d := range kept {
		under = append(under, d+"/") // a file of that name is not the directory
	}
	beside := []string{rev, "--", "./"}
	for _, p := range parents {
		beside = append(beside, p+"/")
	}
	var sizes []int64
	for _, args := range [][]string{under, beside} {
		out, err := r.git.Run(ctx, dir, append([]string{"--literal-pathspecs", "ls-tree", "-l", "-z", "--full-tree"}, args...)...)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, parseTreeSizes(out)...)
	}
	return sizes, nil
}

// parseTreeSizes reads `ls-tree -r -l -z`: "<mode> <type> <oid> <size>\t<path>".
func parseTreeSizes(out string) []int64 {
	var sizes []int64
	for _, entry := range strings.Split(out, "\x00") {
		meta, _, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

// Blobs returns the blob id of each of paths (literal, relative to the
// repository's root) in rev's tree; a path the tree lacks, or holds as a
// folder or a submodule, has none.
func (r History) Blobs(ctx context.Context, dir, rev string, paths []string) (map[string]string, error) {
	out, err := r.git.Run(ctx, dir, append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", rev, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	return parseBlobs(out), nil
}

// parseBlobs reads `ls-tree -r -z`: "<mode> <type> <oid>\t<path>".
func parseBlobs(out string) map[string]string {
	blobs := map[string]string{}
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			blobs[path] = f[2]
		}
	}
	return blobs
}

// TracksUnder reports whether rev's tree holds path (relative to the
// repository's root, a literal), or anything under it.
func (r History) TracksUnder(ctx context.Context, dir, rev, path string) (bool, error) {
	out, err := r.git.Run(ctx, dir, "--literal-pathspecs", "ls-tree", "--full-tree", "--name-only", "-z", rev, "--", path)
	return out != "", err
}

// LongestPath is the length, in characters, of the longest path rev's
// tree holds (relative to the repository's root): what a checkout of rev
// adds to its worktree's path.
func (r History) LongestPath(ctx context.Context, dir, rev string) (int, error) {
	out, err := r.git.Run(ctx, dir, "ls-tree", "-r", "-z", "--full-tree", "--name-only", rev)
	longest := 0
	for name := range strings.SplitSeq(out, "\x00") {
		longest = max(longest, utf8.RuneCountInString(name))
	}
	return longest, err
}

// MergedInto returns which of refs (full refs) are ancestors of (merged
// into) commit.
func (r History) MergedInto(ctx context.Context, dir, commit string, refs []string) (map[string]bool, error) {
	return r.refsWhere(ctx, dir, "--merged="+commit, refs)
}

// refsWhere returns which of refs pass a for-each-ref filter (--merged,
// --contains), in one process.
func (r History) refsWhere(ctx context.Context, dir, filter string, refs []string) (map[string]bool, error) {
	lines, err := r.git.Lines(ctx, dir, append([]string{"for-each-ref", "--format=%(refname)", filter}, refs...)...)
	if err != nil {
		return nil, err
	}
	has := make(map[string]bool, len(lines))
	for _, l := range lines {
		has[l] = true
	}
	return has, nil
}

// DiffTrees runs one diff-tree over pairs of commits ("tip base" per
// line): -r -z, no renames, and a header for every pair even when its
// diff is empty (--always), so that the output's sections follow the
// input's order.
func (r History) DiffTrees(ctx context.Context, dir string, pairs [][2]string) ([]byte, error) {
	var in strings.Builder
	for _, p := range pairs {
		in.WriteString(p[0] + " " + p[1] + "\n")
	}
	return r.git.Exec(ctx, Cmd{Dir: dir, Stdin: strings.NewReader(in.String()),
		Args: []string{"diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames"}})
}

// OwnCommits lists the commits of from that are not in notIn, merges left
// out ("" when there are none).
func (r History) OwnCommits(ctx context.Context, dir, from, notIn string) (string, error) {
	revs, err := r.git.Run(ctx, dir, "rev-list", "--no-merges", from, "--not", notIn, "--")
	return strings.TrimSpace(revs), err
}

// CountFoundNowhereElse counts the commits of branch (a short name) that
// no other branch, no remote-tracking branch, and none of also reach: the
// commits deleting the branch would lose.
func (r History) CountFoundNowhereElse(ctx context.Context, dir, branch string, also ...string) (int, error) {
	args := append([]string{"rev-list", "--count", "--ignore-missing", "refs/heads/" + branch,
		"--not", "--exclude=" + branch, "--branches", "--remotes"}, also...)
	out, err := r.git.Run(ctx, dir, append(args, "--")...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// NotOnRemotes is the part of the history of heads (commit ids) that no
// remote-tracking ref reaches and none of also (full refs or commit ids)
// does — the commits on no remote and merged into none of them — as each
// such commit's parents: one process for any number of heads, so that a
// caller counts each head's commits from the graph. A head that is not a
// commit id is left out. Read only.
func (r History) NotOnRemotes(ctx context.Context, dir string, heads []string, also ...string) (map[string][]string, error) {
	var in strings.Builder
	for _, h := range heads {
		if IsObjectID(h) {
			in.WriteString(h + "\n")
		}
	}
	args := append([]string{"rev-list", "--parents", "--stdin", "--not", "--remotes"}, also...)
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: ReadOnly, Stdin: strings.NewReader(in.String()), Args: append(args, "--")})
	if err != nil {
		return nil, err
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	return graph, nil
}
