package machine

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/madeby"
)

// Found is a repository found under a runner's root: its common dir, the
// runner, and the first of its worktrees seen under that runner's root.
type Found struct {
	CommonDir string
	Runner    string
	Worktree  string
}

const (
	// maxDepth is how deep below a root a worktree is looked for: gwq's
	// host/owner/repository/branch, with a branch of a few folders, is
	// the deepest layout a runner documents.
	maxDepth = 6
	// maxFolders bounds the folders read under one root: a root that
	// holds something else entirely (a home folder's ~/worktrees of
	// another kind) costs a bounded walk.
	maxFolders = 20000
	// maxGitFile bounds a .git file: git's own are one short line.
	maxGitFile = 4096
)

// Discover walks each root (madeby.Roots), never through a link, at most maxDepth
// folders deep, and returns the repositories whose worktrees it holds,
// each once for each runner (by common dir, in the order found). A folder holding a .git
// is a worktree and is not walked further. Every .git found is another
// program's file (SPEC §19): only a regular file of at most maxGitFile
// bytes that points at an admin entry of a repository, whose own files
// point back at this folder, counts (WorktreeCommonDir); a .git folder is
// a clone's own repository. Anything else is skipped.
func Discover(roots []madeby.Root) []Found {
	var found []Found
	type key struct{ common, runner string }
	seen := map[key]bool{}
	for _, root := range roots {
		walkRoot(root.Path, func(dir string) {
			common, ok := WorktreeCommonDir(dir)
			runner := string(root.Maker)
			if !ok || seen[key{fsutil.PathKey(common), runner}] {
				return
			}
			seen[key{fsutil.PathKey(common), runner}] = true
			found = append(found, Found{CommonDir: common, Runner: runner, Worktree: dir})
		})
	}
	return found
}

// walkRoot calls worktree for every folder under root (breadth first,
// maxDepth deep, maxFolders at most) that holds a .git entry. The root
// itself may be a link (a user's dotfiles); nothing below it is followed.
func walkRoot(root string, worktree func(dir string)) {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return
	}
	level := []string{root}
	visited := 0
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			if visited++; visited > maxFolders {
				return
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			if slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == ".git" }) {
				if depth > 0 {
					worktree(dir)
				}
				continue
			}
			for _, e := range entries {
				if e.IsDir() { // a link's type is a link, never a folder: not followed
					next = append(next, filepath.Join(dir, e.Name()))
				}
			}
		}
		level = next
	}
}

// WorktreeCommonDir is the common dir of the repository whose worktree
// is dir, read from dir's .git as hostile data: a .git file must be a
// regular file of at most maxGitFile bytes naming an admin entry of a
// repository (<common dir>/worktrees/<id>) whose gitdir file points back
// at dir/.git and whose commondir leads back to the repository
// (git.ProveLinked); a .git folder must be a repository itself. ok is
// false for anything else: a pointer into a folder that is no repository,
// a link, a fifo, a file too big.
func WorktreeCommonDir(dir string) (string, bool) {
	dotGit := filepath.Join(dir, ".git")
	st, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return "", false
	case st.IsDir():
		if !isCommonDir(dotGit) {
			return "", false
		}
		return realDir(dotGit)
	case !st.Mode().IsRegular() || st.Size() > maxGitFile:
		return "", false
	}
	data, err := readRegular(dotGit, maxGitFile)
	if err != nil {
		return "", false
	}
	written, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || written == "" || strings.ContainsAny(written, "\x00\n") {
		return "", false
	}
	admin := git.Resolve(dir, written)
	if filepath.Base(filepath.Dir(admin)) != "worktrees" {
		return "", false
	}
	common, ok := realDir(filepath.Dir(filepath.Dir(admin)))
	if !ok || !git.IsGitDir(common) {
		return "", false
	}
	for _, name := range []string{"gitdir", "commondir"} {
		// ProveLinked reads them whole: a fifo there would hang it.
		if st, err := os.Lstat(filepath.Join(admin, name)); err != nil || !st.Mode().IsRegular() || st.Size() > maxGitFile {
			return "", false
		}
	}
	if _, err := git.ProveLinked(common, dir, dir); err != nil {
		return "", false
	}
	return common, true
}

// isCommonDir says whether dir is a repository's common dir: a git dir
// with no commondir file of its own.
func isCommonDir(dir string) bool {
	_, linked := git.CommonDirWritten(dir)
	return !linked && git.IsGitDir(dir)
}

// realDir is dir with every link resolved, when it is a folder.
func realDir(dir string) (string, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", false
	}
	return real, true
}

// readRegular reads at most max bytes of path, if it is a regular file
// once opened (a fifo swapped in after the Lstat would block the open, so
// the open does not wait for a writer).
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return io.ReadAll(io.LimitReader(f, max))
}
