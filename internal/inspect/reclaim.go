package inspect

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// BuildOutput lists the folders of the worktree at dir that gc --reclaim
// may delete (SPEC §20), relative to dir: those git ignores whole whose
// name wt.reclaim names (MatchReclaim), each a real folder reached through
// no symlink. The worktree's files come from its branch and its agent: a
// committed or planted link named node_modules is git's "file", never a
// folder here, and a link on the way to one leaves it out.
func (m *Inspector) BuildOutput(ctx context.Context, dir string) ([]string, error) {
	if len(m.Settings.Reclaim) == 0 {
		return nil, nil
	}
	ignored, err := m.Git.Index().IgnoredFolders(ctx, dir)
	if err != nil {
		return nil, err
	}
	var folders []string
	for _, rel := range MatchReclaim(ignored, m.Settings.Reclaim) {
		rel = filepath.FromSlash(rel)
		if st, err := os.Lstat(filepath.Join(dir, rel)); err == nil && st.IsDir() && fsutil.FirstSymlink(dir, rel) == "" {
			folders = append(folders, rel)
		}
	}
	return folders, nil
}

// BuildOutputSize is the disk the build output of the worktree at dir
// takes (a hard-linked file once); 0 when git cannot list it.
func (m *Inspector) BuildOutputSize(ctx context.Context, dir string) int64 {
	folders, err := m.BuildOutput(ctx, dir)
	if err != nil || len(folders) == 0 {
		return 0
	}
	paths := make([]string, len(folders))
	for i, f := range folders {
		paths[i] = filepath.Join(dir, f)
	}
	return fsutil.DiskUsage(paths...)
}

// MatchReclaim keeps, of the folders git ignores whole (relative paths as
// git writes them, with /), those whose own name is one of names, the
// outermost only: a match inside another match goes with it. Paths come
// back clean; one that would lead out of the worktree is left out.
func MatchReclaim(ignored, names []string) []string {
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
	}
	sorted := append([]string(nil), ignored...)
	sort.SliceStable(sorted, func(i, j int) bool { return depth(sorted[i]) < depth(sorted[j]) })
	kept := map[string]bool{}
	var out []string
	for _, p := range sorted {
		p = path.Clean(p)
		if !local(p) || !wanted[path.Base(p)] || insideAny(p, kept) {
			continue
		}
		kept[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func depth(p string) int { return strings.Count(path.Clean(p), "/") }

// local says whether the clean path p stays inside the worktree: git
// lists nothing else, and a listing that did is not acted on.
func local(p string) bool {
	return p != "." && p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

// insideAny says whether a folder above p is in set.
func insideAny(p string, set map[string]bool) bool {
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if set[dir] {
			return true
		}
	}
	return false
}
