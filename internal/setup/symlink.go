package setup

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/text"
)

// linkDirs gives the worktree at dir a symlink to the main worktree's
// folder for each directory of wt.symlink (SPEC §17), in place of a copy:
// only a folder git ignores in the main worktree is linked (a tracked or
// merely untracked one would be the task's own files), nothing that
// stands in the worktree already is replaced, and no link is made
// through a symlink on the way (folderFor). A .gitwt the user has not
// trusted links nothing.
func (m *Handler) linkDirs(ctx context.Context, dir string, log io.Writer) error {
	links, untrusted := m.Settings.SymlinkDirs()
	if len(untrusted) > 0 {
		m.Warn("skipped %d wt.symlink %s from %s, which you have not trusted (git wt trust)",
			len(untrusted), text.Plural(len(untrusted), "value", "values"), filepath.Join(m.Repo.MainDir, ".gitwt"))
	}
	if len(links) == 0 {
		return m.Place.ExcludeSymlinks(ctx, nil)
	}
	linkable, err := m.linkable(ctx, links, log)
	if err != nil {
		return err
	}
	// info/exclude is every worktree's, the main one's too: a line for a
	// folder git does not ignore would hide new files there from commit
	// and from rm's look for unsaved work, so only links made get one.
	if err := m.Place.ExcludeSymlinks(ctx, linkable); err != nil {
		return err
	}
	root, err := fsutil.OpenRootDir(dir)
	if err != nil {
		return fmt.Errorf("cannot link into %s: %w", dir, err)
	}
	defer root.Close()
	for _, rel := range linkable {
		from, to := filepath.Join(m.Repo.MainDir, rel), filepath.Join(dir, rel)
		if _, err := root.Lstat(rel); err == nil {
			continue // there already (made by the checkout, or an earlier setup)
		}
		ok, err := m.folderFor(root, rel, "linked", log)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := root.Symlink(from, rel); err != nil {
			return fmt.Errorf("cannot link %s to %s: %v", to, from, err)
		}
		fmt.Fprintf(log, "git-wt: linked %s to %s\n", to, from)
	}
	return nil
}

// linkable keeps the wt.symlink folders that can be linked: folders of
// the main worktree that git ignores there; it says why each other is not.
func (m *Handler) linkable(ctx context.Context, links []string, log io.Writer) ([]string, error) {
	ignored, err := m.Git.Index().CheckIgnore(ctx, m.Repo.MainDir, links)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, rel := range links {
		from := filepath.Join(m.Repo.MainDir, rel)
		if st, err := os.Stat(from); err != nil || !st.IsDir() {
			fmt.Fprintf(log, "git-wt: wt.symlink %s: %s is no folder, nothing linked\n", rel, from)
			continue
		}
		if !ignored[rel] {
			m.Warn("wt.symlink %s: git does not ignore %s in the main worktree, so it was not linked (add it to .gitignore)", rel, from)
			continue
		}
		keep = append(keep, rel)
	}
	return keep, nil
}
