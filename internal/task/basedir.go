package task

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/settings"
)

// Where a base dir may be (SPEC §14): not the main worktree or any
// worktree, not around the main worktree, not inside git's own folders,
// and, inside the main worktree, not a path the task's base commit tracks.
// A base dir from the user's config that breaks a rule is refused (exit
// 2); one from a committed .gitwt is ignored with a warning, and the
// default is used. The checks that need no git run wherever the base dir
// is used (new, merge); the tracked-path check runs only in new, and only
// for a base dir inside the main worktree.

// PlaceNew is the base dir a new task goes into, its symlinks resolved,
// made if needed and, when it lies inside the main worktree, kept out of
// the main worktree's status by .git/info/exclude. base is the commit the
// task starts from.
func (m *Manager) PlaceNew(ctx context.Context, base string) (string, error) {
	if len(m.Settings.Invalid) > 0 {
		return "", exitcode.Usagef("%v", m.Settings.Invalid[0])
	}
	dir, err := m.allowedBaseDir()
	if err != nil {
		return "", err
	}
	if dir, err = m.untrackedBaseDir(ctx, dir, base); err != nil {
		return "", err
	}
	for _, w := range m.Settings.Warnings {
		m.Warn("%s", w)
	}
	if err := m.excludeBaseDir(ctx, dir); err != nil {
		return "", err
	}
	return makeBaseDir(dir)
}

// allowedBaseDir is the configured base dir if the rules that need no git
// allow it (else the default, when a .gitwt named it). New runs it for
// every command, so that all agree on the base dir; only those that use
// it (new, merge) report a refusal.
func (m *Manager) allowedBaseDir() (string, error) {
	dir := m.Settings.BaseDir
	if why := m.baseDirProblem(dir); why != "" {
		return m.rejectBaseDir(dir, why)
	}
	return dir, nil
}

// untrackedBaseDir is dir unless it lies inside the main worktree on a
// path that the commit base tracks (a tracked file or folder, or a folder
// holding one): worktrees there would mix with the main worktree's files.
// One git process, and only for a base dir inside the main worktree.
func (m *Manager) untrackedBaseDir(ctx context.Context, dir, base string) (string, error) {
	rel, ok := m.inMainWorktree(dir)
	if !ok || base == "" {
		return dir, nil
	}
	out, err := m.Git.Run(ctx, m.Repo.MainDir, "--literal-pathspecs", "ls-tree", "--full-tree", "--name-only", "-z", base, "--", filepath.ToSlash(rel))
	if err != nil {
		return "", err
	}
	if out != "" {
		return m.rejectBaseDir(dir, fmt.Sprintf("%s is tracked in the commit %s (worktrees would mix with the main worktree's files)", rel, shortID(base)))
	}
	return dir, nil
}

// inMainWorktree is dir (its symlinks resolved) relative to the main
// worktree, when it lies strictly inside it.
func (m *Manager) inMainWorktree(dir string) (string, bool) {
	real, err := fsutil.ResolveExisting(dir)
	if err != nil {
		real = dir
	}
	for _, d := range []string{real, dir} {
		if d != m.Repo.MainDir && fsutil.Within(m.Repo.MainDir, d) {
			rel, err := filepath.Rel(m.Repo.MainDir, d)
			return rel, err == nil
		}
	}
	return "", false
}

// rejectBaseDir refuses dir, which breaks a rule (why), or, when it came
// from a .gitwt, warns and falls back to the default base dir.
func (m *Manager) rejectBaseDir(dir, why string) (string, error) {
	s := m.Settings
	switch s.BaseDirScope {
	case settings.ScopeGitwt:
		s.IgnoreGitwt("wt.baseDir", dir, why)
		s.BaseDir, s.BaseDirScope = settings.DefaultBaseDir(m.Repo.MainDir), ""
		if why := m.baseDirProblem(s.BaseDir); why != "" {
			return m.rejectBaseDir(s.BaseDir, why)
		}
		return s.BaseDir, nil
	case "":
		return "", exitcode.Usagef("the default base dir %s may not hold worktrees: %s; set wt.baseDir to another folder (git config wt.baseDir DIR)", dir, why)
	}
	return "", exitcode.Usagef("wt.baseDir %s (%s config) may not hold worktrees: %s; set wt.baseDir to another folder (git config wt.baseDir DIR)", dir, s.BaseDirScope, why)
}

// baseDirProblem says which rule dir breaks, or "" when none, looking at
// dir as written and with its symlinks resolved. Paths and a few lstat
// calls, no git.
func (m *Manager) baseDirProblem(dir string) string {
	real, err := fsutil.ResolveExisting(dir)
	if err != nil {
		real = dir
	}
	main, trusted := m.Repo.MainDir, m.Settings.BaseDirScope != settings.ScopeGitwt || m.Settings.GitwtTrusted()
	for _, d := range []string{dir, real} {
		switch {
		case d == main:
			return "it is the main worktree"
		case fsutil.Within(d, main):
			return fmt.Sprintf("it contains the main worktree %s", main)
		case fsutil.Within(m.Repo.CommonDir, d) || fsutil.Within(m.Repo.GitDir, d):
			return fmt.Sprintf("it lies inside git's own folder %s", m.Repo.CommonDir)
		case !trusted && !settings.UntrustedBaseDirAllowed(main, d):
			return fmt.Sprintf("it resolves to %s, outside the places an untrusted .gitwt may name (git wt trust accepts the file as it is)", d)
		}
		if wt := m.linkedWorktreeAt(d); wt != "" {
			return fmt.Sprintf("it lies inside the worktree %s", wt)
		}
	}
	return ""
}

// linkedWorktreeAt is the linked worktree of this repository that dir is
// or lies inside ("" when none), found by walking up to the main worktree
// or the root and reading each .git file on the way.
func (m *Manager) linkedWorktreeAt(dir string) string {
	for d := dir; d != m.Repo.MainDir; d = filepath.Dir(d) {
		if st, err := os.Lstat(filepath.Join(d, ".git")); err == nil && st.Mode().IsRegular() {
			if _, admin, err := git.AdminDir(d); err == nil && git.CommonDirOf(admin) == m.Repo.CommonDir {
				return d
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// makeBaseDir creates the base dir dir if needed and returns it with its
// symlinks resolved (once: a base dir that is itself a symlink is
// allowed).
func makeBaseDir(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", exitcode.Failedf("cannot create the worktree base dir %s: %v", dir, UnwrapPathErr(err))
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", exitcode.Failedf("cannot resolve the worktree base dir %s: %v", dir, UnwrapPathErr(err))
	}
	return real, nil
}

// shortID is a commit id cut for a message.
func shortID(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}
