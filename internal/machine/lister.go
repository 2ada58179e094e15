package machine

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
)

// Lister is the surveyor that knows a repository's worktrees from git's
// worktree list and their sizes from the file system; it judges none.
type Lister struct{ Git *git.Runner }

// Survey lists the worktrees of the repository at commonDir: one git
// worktree list, pinned to that git dir and reading only, after the
// checks git-wt makes before it reads another repository (SPEC §19:
// no config, its own included, that would run a command). A worktree whose
// folder is gone, or is not the worktree git's entry names (its .git
// points elsewhere), is left out: its size would be another folder's.
func (l Lister) Survey(ctx context.Context, commonDir string, size bool) (string, []Worktree, error) {
	if err := git.CheckReadOnlyRepo(commonDir); err != nil {
		return "", nil, err
	}
	listed, err := l.Git.WorktreesOf(ctx, commonDir)
	if err != nil {
		return "", nil, err
	}
	main := ""
	var wts []Worktree
	for i, wt := range listed {
		isMain := i == 0
		if wt.Bare || wt.Prunable || !Belongs(commonDir, wt.Path, isMain) {
			continue
		}
		if isMain {
			main = wt.Path
		}
		wts = append(wts, Worktree{Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Main: isMain, Locked: wt.Locked})
	}
	if size {
		async.Each(len(wts), 0, func(i int) {
			n := fsutil.DiskUsage(wts[i].Path)
			wts[i].SizeBytes = &n
		})
	}
	return main, wts, nil
}

// Belongs says whether the folder path is a worktree of the repository
// at commonDir as its own files say: the main worktree's .git is that
// folder; a linked worktree's .git file and git's entry agree
// (git.ProveLinked). A path in git's entries is a file anything that
// writes the git dir can change; this keeps a survey inside the
// repository's own worktrees.
func Belongs(commonDir, path string, main bool) bool {
	if !main {
		_, err := git.ProveLinked(commonDir, path, path)
		return err == nil
	}
	dotGit := filepath.Join(path, ".git")
	st, err := os.Lstat(dotGit)
	if err != nil || !st.IsDir() {
		return false
	}
	a, errA := filepath.EvalSymlinks(dotGit)
	b, errB := filepath.EvalSymlinks(commonDir)
	return errA == nil && errB == nil && fsutil.SamePath(a, b)
}
