package setup

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/text"
)

// readySubmodules gives the worktree at dir the submodules the main
// worktree has initialised (SPEC §17), recursively, at the commits dir's
// tree records, each cloned from the main worktree's module repository
// (the file transport hard-links its objects: no second copy, and no
// network). With wt.submodules true, a submodule the main worktree lacks
// is cloned too, from its own URL. A name .gitmodules gives that git-wt
// refuses (SPEC §19) is skipped with a warning: the task is made without
// that submodule.
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
	if git.ExitCode(err) == 128 {
		// A commit's .gitmodules git cannot read (a name with a line
		// break, say): git's submodule commands cannot either.
		m.Warn("no submodules in %s: %s", text.Terminal(dir), text.OneLine(err.Error()))
		return nil
	}
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
	for _, name := range sortedKeys(paths) {
		if err := git.CheckModuleName(name); err != nil {
			m.Warn("skipped the submodule %q in %s: %v", name, text.Terminal(dir), err)
			continue
		}
		from := git.ModuleStore(mainGit, name) // "": none to borrow from
		_, inited := mainURLs[name]
		if !(inited && from != "") && !all {
			continue // the main worktree has not initialised it: neither has the task
		}
		srcs = append(srcs, git.ModuleSource{Name: name, Path: paths[name], From: from})
	}
	if len(srcs) == 0 {
		return nil
	}
	if err := m.moduleURLs(ctx, dir, top, mainURLs, srcs); err != nil {
		return err
	}
	fmt.Fprintf(log, "git-wt: submodules of %s from the main worktree's module repositories\n", dir)
	if err := subs.Update(ctx, dir, top, srcs, log); err != nil {
		return fmt.Errorf("cannot check out the submodules of %s (%v): fetch them in the main worktree (git submodule update), then run git wt init", dir, err)
	}
	for _, src := range srcs {
		if src.From == "" {
			continue // cloned from its URL: nothing of the main's below it
		}
		sub := filepath.Join(dir, src.Path)
		if src.URL != "" {
			// Cloned from src.From: its origin is the submodule's URL again.
			if err := subs.SetOrigin(ctx, sub, src.URL); err != nil {
				return err
			}
		}
		if err := m.submodulesIn(ctx, sub, src.From, false, log); err != nil {
			return err
		}
	}
	return nil
}

// moduleURLs sets the URL of each of srcs: what the submodule's origin
// is once cloned, as the repository at dir resolves it (a relative URL is
// relative to that repository's origin). Below the top, dir is a
// repository of the task's own, where git initialises them. At the top,
// dir's config is the main worktree's, which new never writes (SPEC §19):
// the URL is the main's, or, for one the main worktree has not
// initialised, the one its module repository was cloned from.
func (m *Handler) moduleURLs(ctx context.Context, dir string, top bool, mainURLs map[string]string, srcs []git.ModuleSource) error {
	subs := m.Git.Submodules()
	if top {
		for i := range srcs {
			url, inited := mainURLs[srcs[i].Name]
			if !inited && srcs[i].From != "" {
				var err error
				if url, err = subs.StoreOrigin(ctx, srcs[i].From); err != nil {
					return err
				}
			}
			srcs[i].URL = url
		}
		return nil
	}
	paths := make([]string, len(srcs))
	for i, src := range srcs {
		paths[i] = src.Path
	}
	if err := subs.Init(ctx, dir, paths); err != nil {
		return fmt.Errorf("cannot initialise the submodules of %s: %v", dir, err)
	}
	_, admin, err := git.AdminDir(dir)
	if err != nil {
		return err
	}
	urls, err := subs.Keys(ctx, dir, filepath.Join(admin, "config"), "url")
	if err != nil {
		return err
	}
	for i := range srcs {
		srcs[i].URL = urls[srcs[i].Name]
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
