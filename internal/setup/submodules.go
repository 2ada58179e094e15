package setup

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-wt/git-wt/internal/git"
)

// readySubmodules gives the worktree at dir the submodules the main
// worktree has initialised (SPEC §17), recursively, at the commits dir's
// tree records, each cloned from the main worktree's module repository
// (the file transport hard-links its objects: no second copy, and no
// network). With wt.submodules true, a submodule the main worktree lacks
// is initialised too, from its own URL.
func (m *Handler) readySubmodules(ctx context.Context, dir string, log io.Writer) error {
	return m.submodulesIn(ctx, dir, m.Repo.CommonDir, true, log)
}

// submodulesIn readies the submodules of one level: the (sub)worktree at
// dir, whose counterpart in the main worktree has its git dir at mainGit
// (the common dir at the top; <its parent's>/modules/<name> below).
func (m *Handler) submodulesIn(ctx context.Context, dir, mainGit string, top bool, log io.Writer) error {
	subs := m.Git.Submodules()
	gitmodules := filepath.Join(dir, ".gitmodules")
	if _, err := os.Lstat(gitmodules); err != nil {
		return nil // no submodules at this level
	}
	paths, err := subs.Keys(ctx, dir, gitmodules, "path")
	if err != nil || len(paths) == 0 {
		return err
	}
	// Initialised in the main worktree: its repository's config has the
	// submodule's URL (at the top, the config the task shares).
	mainURLs, err := subs.Keys(ctx, dir, filepath.Join(mainGit, "config"), "url")
	if err != nil {
		return err
	}
	all := m.Settings.Submodules == "true"
	var srcs []git.ModuleSource
	var toInit []string
	for _, name := range sortedKeys(paths) {
		from := filepath.Join(mainGit, "modules", name)
		_, inited := mainURLs[name]
		if st, err := os.Stat(from); err != nil || !st.IsDir() {
			from = "" // no module repository to borrow from
		}
		if !(inited && from != "") && !all {
			continue // the main worktree has not initialised it: neither has the task
		}
		if !top || !inited {
			toInit = append(toInit, paths[name])
		}
		srcs = append(srcs, git.ModuleSource{Name: name, Path: paths[name], From: from})
	}
	if len(srcs) == 0 {
		return nil
	}
	if len(toInit) > 0 {
		if err := subs.Init(ctx, dir, toInit); err != nil {
			return fmt.Errorf("cannot initialise the submodules of %s: %v", dir, err)
		}
	}
	urls := mainURLs
	if !top || len(toInit) > 0 {
		// The URLs as this repository resolved them (a relative URL is
		// relative to its own origin): those are what insteadOf must match.
		_, admin, err := git.AdminDir(dir)
		if top {
			admin, err = m.Repo.CommonDir, nil
		}
		if err != nil {
			return err
		}
		if urls, err = subs.Keys(ctx, dir, filepath.Join(admin, "config"), "url"); err != nil {
			return err
		}
	}
	for i := range srcs {
		srcs[i].URL = urls[srcs[i].Name]
	}
	fmt.Fprintf(log, "git-wt: submodules of %s from the main worktree's module repositories\n", dir)
	if err := subs.Update(ctx, dir, srcs, log); err != nil {
		return fmt.Errorf("cannot check out the submodules of %s from the main worktree's (%v): fetch them in the main worktree (git submodule update), then run git wt init", dir, err)
	}
	for _, src := range srcs {
		sub := filepath.Join(dir, src.Path)
		if src.From != "" && git.IsPathURL(src.URL) {
			if err := subs.SetOrigin(ctx, sub, src.URL); err != nil {
				return err
			}
		}
		next := src.From
		if next == "" {
			continue // cloned from its URL: nothing of the main's below it
		}
		if err := m.submodulesIn(ctx, sub, next, false, log); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
