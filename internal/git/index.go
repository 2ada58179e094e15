package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// StageAll stages every change in the worktree at dir, new files
// included, ignored ones not. git looks into the repositories nested in
// the worktree for their changes (entersNested).
func (r Index) StageAll(ctx context.Context, dir string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Args: []string{"add", "-A"}, entersNested: true})
	return err
}

// HasStaged reports whether the index of the worktree at dir differs from
// its HEAD (plumbing: no diff.* setting changes the answer).
func (r Index) HasStaged(ctx context.Context, dir string) (bool, error) {
	_, err := r.git.RunIn(ctx, dir, "diff-index", "--cached", "--quiet", "HEAD", "--")
	if ExitCode(err) == 1 {
		return true, nil
	}
	return false, err
}

// Head is the commit the worktree at dir has checked out.
func (r Index) Head(ctx context.Context, dir string) (string, error) {
	out, err := r.git.RunIn(ctx, dir, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}

// CommitStaged commits what is staged in the worktree at dir with msg,
// quietly.
func (r Index) CommitStaged(ctx context.Context, dir, msg string) error {
	_, err := r.git.RunIn(ctx, dir, "commit", "-q", "-m", msg)
	return err
}

// The ways Merge merges (git merge's flags).
type MergeHow int

const (
	MergeNoFF   MergeHow = iota // a merge commit with message
	MergeFFOnly                 // fast-forward, or fail
	MergeSquash                 // stage the result, commit nothing
)

// Merge merges ref into the branch checked out in the worktree at dir,
// as the user would type it there.
func (r Index) Merge(ctx context.Context, dir, ref string, how MergeHow, msg string) error {
	args := []string{"merge", "-q", "--no-edit"}
	switch how {
	case MergeSquash:
		args = append(args, "--squash")
	case MergeFFOnly:
		args = append(args, "--ff-only")
	default:
		args = append(args, "--no-ff", "-m", msg)
	}
	_, err := r.git.RunIn(ctx, dir, append(args, ref)...)
	return err
}

// Rebase rebases the branch checked out in the worktree at dir onto onto.
func (r Index) Rebase(ctx context.Context, dir, onto string) error {
	_, err := r.git.RunIn(ctx, dir, "rebase", "-q", onto)
	return err
}

// Abort ends what git stopped in the middle of in the worktree at dir
// (op, as InProgress names it: a merge or a rebase) with git's own abort;
// any other op resets the index and the files a merge touched. Best
// effort: what it cannot take back stays for the user to see.
func (r Index) Abort(ctx context.Context, dir, op string) {
	switch op {
	case OpMerge:
		r.git.RunIn(ctx, dir, "merge", "--abort")
	case OpRebase:
		r.git.RunIn(ctx, dir, "rebase", "--abort")
	default:
		r.git.RunIn(ctx, dir, "reset", "--merge", "-q")
	}
}

// UnmergedPaths lists the paths with conflicts in the index of the
// worktree at dir, each once.
func (r Index) UnmergedPaths(ctx context.Context, dir string) []string {
	out, _ := r.git.RunIn(ctx, dir, "ls-files", "--unmerged", "-z")
	return parseUnmerged(out)
}

// parseUnmerged reads `ls-files --unmerged -z`: "<mode> <oid> <stage>\t<path>"
// entries, up to three per path.
func parseUnmerged(out string) []string {
	var paths []string
	for _, entry := range strings.Split(out, "\x00") {
		if _, path, ok := strings.Cut(entry, "\t"); ok && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths
}

// Tracked reports whether git tracks path (relative to the worktree at
// dir, a literal path) or anything under it.
func (r Index) Tracked(ctx context.Context, dir, path string) (bool, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_LITERAL_PATHSPECS=1"}, Args: []string{"ls-files", "-z", "--", path}})
	return err == nil && len(out) > 0, err
}

// Refresh brings the stat data of the index of the worktree at dir up to
// date and writes it: the files whose content has to be read again (those
// written in the same second as the index, "racily clean") are read once
// here, not by every later status.
func (r Index) Refresh(ctx context.Context, dir string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Args: []string{"update-index", "-q", "--refresh"}})
	return err
}

// ReadTreeInto reads rev's tree into the index file index, for the
// worktree at dir, and touches neither the worktree's own index nor its
// files.
func (r Index) ReadTreeInto(ctx context.Context, dir, index, rev string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_INDEX_FILE=" + index, "GIT_OPTIONAL_LOCKS=0"},
		Args: []string{"read-tree", rev}})
	return err
}

// CheckIgnore returns which of paths (relative to the worktree at dir)
// git's ignore rules ignore.
func (r Index) CheckIgnore(ctx context.Context, dir string, paths []string) (map[string]bool, error) {
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(strings.TrimSuffix(p, "/") + "\x00")
	}
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Stdin: strings.NewReader(in.String()), Args: []string{"check-ignore", "-z", "--stdin"}})
	if err != nil && ExitCode(err) != 1 { // 1: none of them is ignored
		return nil, err
	}
	set := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set, nil
}

// IgnoredMatching lists the untracked files and folders of the worktree
// at dir that the patterns match (each pattern a --exclude, the file
// excludeFrom, if not "", as more), a folder that matches as a whole
// listed once with a trailing slash.
func (r Index) IgnoredMatching(ctx context.Context, dir, excludeFrom string, patterns []string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--directory"}
	if excludeFrom != "" {
		args = append(args, "--exclude-from="+excludeFrom)
	}
	for _, p := range patterns {
		args = append(args, "--exclude="+p)
	}
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Args: args})
	return splitNul(out), err
}

// Untracked lists the untracked files under folders (literal paths) of
// the worktree at dir that git's ignore rules ignore (ignored) or do not.
func (r Index) Untracked(ctx context.Context, dir string, ignored bool, folders []string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others"}
	if ignored {
		args = append(args, "--ignored")
	}
	args = append(append(args, "--exclude-standard", "--"), folders...)
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Env: []string{"GIT_LITERAL_PATHSPECS=1"}, Args: args})
	return splitNul(out), err
}

// IgnoredFolders lists the folders of the worktree at dir that git's
// ignore rules (.gitignore, info/exclude, core.excludesFile) ignore as a
// whole, relative to dir and without their trailing slash: git lists a
// folder once when nothing below it is tracked or left unignored, and
// the ignored entries of any other folder one by one. Ignored files and
// symlinks (git lists a link as a file) are left out.
func (r Index) IgnoredFolders(ctx context.Context, dir string) ([]string, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: ReadOnly,
		Args: []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"}})
	if err != nil {
		return nil, err
	}
	var folders []string
	for _, p := range splitNul(out) {
		if f, ok := strings.CutSuffix(p, "/"); ok && f != "" {
			folders = append(folders, f)
		}
	}
	return folders, nil
}

// IgnoredFile is an untracked file of a worktree that git's ignore rules
// ignore, and the pattern file whose line decides it (git check-ignore
// -v): a .gitignore of the worktree as a path relative to its top, or an
// absolute one (the common dir's info/exclude, core.excludesFile); ""
// when git named none.
type IgnoredFile struct {
	Path, Source string
}

// IgnoredFiles lists every untracked file of the worktree at dir that
// git's ignore rules ignore, each with the pattern file that decides it.
// One by one, not folder by folder: a folder's files may be ignored for
// different reasons, and a folder as a whole by none of its own.
func (r Index) IgnoredFiles(ctx context.Context, dir string) ([]IgnoredFile, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: ReadOnly,
		Args: []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard"}})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	paths := splitNul(out)
	// Not GIT_LITERAL_PATHSPECS, which check-ignore refuses: a name
	// that reads as pathspec magic (":(glob)x") fails the call, and a
	// path it names back otherwise gets no source: work, either way.
	why, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: ReadOnly, Stdin: bytes.NewReader(out),
		Args: []string{"check-ignore", "-z", "-v", "--no-index", "--stdin"}})
	if err != nil && ExitCode(err) != 1 { // 1: none of them is ignored
		return nil, err
	}
	sources := parseCheckIgnore(why)
	files := make([]IgnoredFile, len(paths))
	for i, p := range paths {
		files[i] = IgnoredFile{Path: p, Source: sources[p]}
	}
	return files, nil
}

// parseCheckIgnore reads `check-ignore -z -v` records, four fields each
// (source, line, pattern, path), as the source of each path.
func parseCheckIgnore(out []byte) map[string]string {
	f := strings.Split(string(out), "\x00")
	sources := map[string]string{}
	for i := 0; i+3 < len(f); i += 4 {
		sources[f[i+3]] = f[i]
	}
	return sources
}

// splitNul splits NUL-terminated output, leaving out empty entries.
func splitNul(out []byte) []string {
	var list []string
	for _, s := range strings.Split(string(out), "\x00") {
		if s != "" {
			list = append(list, s)
		}
	}
	return list
}

// CommitShowing commits what is staged in the worktree at dir with msg,
// quietly, its stderr (where the user's commit hooks speak) to stderr.
// It is not retried on a lock another git holds: the caller retries, so
// that only the last attempt's output is shown.
func (r Index) CommitShowing(ctx context.Context, dir, msg string, stderr io.Writer) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, NoRetry: true, Stderr: stderr, Args: []string{"commit", "-q", "-m", msg}})
	return err
}

// HashFiles returns the blob id git would store for each of paths
// (literal, relative to the worktree at dir), filters applied as git add
// applies them, and writes nothing. A path with a line break is left out
// (it cannot be passed); one git cannot read fails the whole call.
func (r Index) HashFiles(ctx context.Context, dir string, paths []string) (map[string]string, error) {
	var in strings.Builder
	var asked []string
	for _, p := range paths {
		if !strings.ContainsAny(p, "\n\r") {
			in.WriteString(p + "\n")
			asked = append(asked, p)
		}
	}
	ids := make(map[string]string, len(asked))
	if len(asked) == 0 {
		return ids, nil
	}
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: ReadOnly,
		Args: []string{"hash-object", "--stdin-paths"}, Stdin: strings.NewReader(in.String())})
	if err != nil {
		return nil, err
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(asked) {
		return nil, fmt.Errorf("git hash-object gave %d ids for %d paths", len(lines), len(asked))
	}
	for i, p := range asked {
		ids[p] = lines[i]
	}
	return ids, nil
}

// HiddenEntries lists the files of the index of the worktree at dir whose
// changes git status does not look for: marked assume-unchanged (`git
// update-index --assume-unchanged`, a user's local edit to a tracked
// file kept out of the way) or skip-worktree (a sparse checkout's files,
// or the same trick), as the blob id the index holds for each path.
// Submodules are left out.
//
// The index is read first, in one streamed pass (scanIndex): git runs
// only when an entry is marked, which few worktrees have, so every plain
// rm can afford the question.
func (r Index) HiddenEntries(ctx context.Context, dir string) (map[string]string, error) {
	ids := map[string]string{}
	if !r.mayHideEntries(ctx, dir) {
		return ids, nil
	}
	hidden, err := r.hiddenEntries(ctx, dir, ReadOnly)
	if err != nil {
		return nil, err
	}
	for _, h := range hidden {
		ids[h.path] = h.oid
	}
	return ids, nil
}

// mayHideEntries says whether the index of the worktree at dir may mark
// an entry hidden: false only when it was read and marks none, or marks
// only skip-worktree entries in a sparse checkout that git itself shows
// the changes of (sparseShowsPresentFiles); an index git-wt cannot read
// is left to git.
func (r Index) mayHideEntries(ctx context.Context, dir string) bool {
	gitDir, _, err := r.git.worktreeGitDir(ctx, dir)
	if err != nil {
		return true
	}
	scan, err := scanIndexFiles(filepath.Join(gitDir, "index"), gitDir)
	return err != nil || scan.assumed || scan.skipped && !r.sparseShowsPresentFiles(ctx, dir)
}

// sparseShowsPresentFiles says whether git, reading the index of the
// sparse checkout at dir, clears the skip-worktree bit of every such file
// on disk (git 2.37 and later, unless sparse.expectFilesOutsideOfPatterns),
// so that git status shows their changes. A cone-mode checkout marks
// every file outside its cone: asking git for each (ls-files -v, then a
// look on disk) would cost a plain rm of a sparse task of 100,000 files
// more than the rest of it.
func (r Index) sparseShowsPresentFiles(ctx context.Context, dir string) bool {
	if !r.git.version.AtLeast(Version{2, 37}) {
		return false
	}
	out, err := r.git.Run(ctx, dir, "config", "--type=bool", "--get-regexp", `^(core\.sparsecheckout|sparse\.expectfilesoutsideofpatterns)$`)
	if err != nil {
		return false
	}
	values := map[string]string{}
	for line := range strings.Lines(out) {
		key, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		values[key] = value // the last one wins, as for git
	}
	return values["core.sparsecheckout"] == "true" && values["sparse.expectfilesoutsideofpatterns"] != "true"
}

// hiddenEntry is one entry of HiddenEntries, and which bit hides it.
type hiddenEntry struct {
	path, oid       string
	assumeUnchanged bool // else skip-worktree
}

// hiddenEntries is HiddenEntries of the index env names.
func (r Index) hiddenEntries(ctx context.Context, dir string, env []string) ([]hiddenEntry, error) {
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: env, Args: []string{"ls-files", "-v", "-s", "-z"}})
	if err != nil {
		return nil, err
	}
	return parseHiddenEntries(splitNul(out)), nil
}

// parseHiddenEntries reads `ls-files -v -s -z` records, "<tag> <mode>
// <oid> <stage>\t<path>": a lower-case tag is assume-unchanged, S
// skip-worktree.
func parseHiddenEntries(records []string) []hiddenEntry {
	var hidden []hiddenEntry
	for _, rec := range records {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] == "160000" {
			continue
		}
		tag := f[0]
		if lower := strings.ToLower(tag) == tag && strings.ToUpper(tag) != tag; lower || tag == "S" {
			hidden = append(hidden, hiddenEntry{path: path, oid: f[2], assumeUnchanged: lower})
		}
	}
	return hidden
}

// Unstage sets paths (literal, relative to the worktree at dir) in its
// index back to HEAD's, dropping those HEAD lacks; the files stay.
func (r Index) Unstage(ctx context.Context, dir string, paths []string) error {
	_, err := r.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: []string{"GIT_LITERAL_PATHSPECS=1"},
		Args: append([]string{"reset", "-q", "--"}, paths...)})
	return err
}
