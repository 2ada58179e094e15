package place

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

// Where a base dir may be (SPEC §14): not the main worktree or any
// worktree, not inside git's own folders, and, inside the main worktree,
// not a path the task's base commit tracks. It may hold the main worktree
// (the sibling layout, wt.baseDir ..): there it is shared ground, where a
// task's folder follows the --path rules and git-wt's own folders carry
// the repository's name (places.go).
// A base dir from the user's config that breaks a rule is refused (exit
// 2); one from a committed .gitwt is ignored with a warning, and the
// default is used. The checks that need no git run wherever the base dir
// is used (new, merge); the tracked-path check runs only in new, and only
// for a base dir inside the main worktree.

// PlaceNew is the base dir a new task goes into, its symlinks resolved,
// made if needed and, when it lies inside the main worktree, kept out of
// the main worktree's status by .git/info/exclude. base is the commit the
// task starts from.
func (r *Rules) PlaceNew(ctx context.Context, base string) (string, error) {
	if len(r.Settings.Invalid) > 0 {
		return "", exitcode.Usagef("%v", r.Settings.Invalid[0])
	}
	dir, err := r.AllowedBaseDir()
	if err != nil {
		return "", err
	}
	if dir, err = r.untrackedBaseDir(ctx, dir, base); err != nil {
		return "", err
	}
	r.Settings.SayWarnings(r.Warn)
	r.tellForeignOnce()
	if err := r.excludeBaseDir(ctx, dir); err != nil {
		return "", err
	}
	if err := r.ExcludeEnvFile(ctx); err != nil {
		return "", err
	}
	return makeBaseDir(dir)
}

// AllowedBaseDir is the configured base dir if the rules that need no git
// allow it (else the default, when a .gitwt named it). New runs it for
// every command, so that all agree on the base dir; only those that use
// it (new, merge) report a refusal.
func (r *Rules) AllowedBaseDir() (string, error) {
	dir := r.Settings.BaseDir
	if why := r.baseDirProblem(dir); why != "" {
		return r.rejectBaseDir(dir, why)
	}
	return dir, nil
}

// untrackedBaseDir is dir unless it lies inside the main worktree on a
// path that the commit base tracks (a tracked file or folder, or a folder
// holding one): worktrees there would mix with the main worktree's files.
// One git process, and only for a base dir inside the main worktree.
func (r *Rules) untrackedBaseDir(ctx context.Context, dir, base string) (string, error) {
	rel, ok := r.inMainWorktree(dir)
	if !ok || base == "" {
		return dir, nil
	}
	tracked, err := r.Git.History().TracksUnder(ctx, r.Repo.MainDir, base, filepath.ToSlash(rel))
	if err != nil {
		return "", err
	}
	if tracked {
		return r.rejectBaseDir(dir, fmt.Sprintf("%s is tracked in the commit %s (worktrees would mix with the main worktree's files)", rel, text.ShortID(base)))
	}
	return dir, nil
}

// inMainWorktree is dir (its symlinks resolved) relative to the main
// worktree, when it lies strictly inside it.
func (r *Rules) inMainWorktree(dir string) (string, bool) {
	real, err := fsutil.ResolveExisting(dir)
	if err != nil {
		real = dir
	}
	for _, d := range []string{real, dir} {
		if !fsutil.SamePath(d, r.Repo.MainDir) && fsutil.Within(r.Repo.MainDir, d) {
			rel, err := filepath.Rel(r.Repo.MainDir, d)
			return rel, err == nil
		}
	}
	return "", false
}

// rejectBaseDir refuses dir, which breaks a rule (why), or, when it came
// from a .gitwt, warns and falls back to the default base dir.
func (r *Rules) rejectBaseDir(dir, why string) (string, error) {
	s := r.Settings
	switch s.BaseDirScope {
	case settings.ScopeGitwt:
		s.IgnoreGitwt("wt.baseDir", dir, why)
		s.BaseDir, s.BaseDirScope = settings.DefaultBaseDir(r.Repo.MainDir), ""
		if why := r.baseDirProblem(s.BaseDir); why != "" {
			return r.rejectBaseDir(s.BaseDir, why)
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
func (r *Rules) baseDirProblem(dir string) string {
	real, err := fsutil.ResolveExisting(dir)
	if err != nil {
		real = dir
	}
	main, trusted := r.Repo.MainDir, r.Settings.BaseDirScope != settings.ScopeGitwt || r.Settings.GitwtTrusted()
	for _, d := range []string{dir, real} {
		switch {
		case d == main:
			return "it is the main worktree"
		case fsutil.Within(r.Repo.CommonDir, d) || fsutil.Within(r.Repo.GitDir, d):
			return fmt.Sprintf("it lies inside git's own folder %s", r.Repo.CommonDir)
		case !trusted && !settings.UntrustedBaseDirAllowed(main, d):
			return fmt.Sprintf("it resolves to %s, outside the places an untrusted .gitwt may name (git wt trust accepts the file as it is)", d)
		}
		if wt := r.linkedWorktreeAt(d); wt != "" {
			return fmt.Sprintf("it lies inside the worktree %s", wt)
		}
	}
	return ""
}

// linkedWorktreeAt is the linked worktree of this repository that dir is
// or lies inside ("" when none), found by walking up to the main worktree
// or the root and reading each .git file on the way.
func (r *Rules) linkedWorktreeAt(dir string) string {
	for d := dir; d != r.Repo.MainDir; d = filepath.Dir(d) {
		if st, err := os.Lstat(filepath.Join(d, ".git")); err == nil && st.Mode().IsRegular() {
			if _, admin, err := git.AdminDir(d); err == nil && git.CommonDirOf(admin) == r.Repo.CommonDir {
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
		return "", exitcode.Failedf("cannot create the worktree base dir %s: %v", dir, fsutil.UnwrapPathErr(err))
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", exitcode.Failedf("cannot resolve the worktree base dir %s: %v", dir, fsutil.UnwrapPathErr(err))
	}
	return real, nil
}

// BaseDir returns the base dir, if SPEC §14 allows it, with its symlinks
// resolved, creating it if needed (see basedir.go).
func (r *Rules) BaseDir() (string, error) {
	dir, err := r.AllowedBaseDir()
	if err != nil {
		return "", err
	}
	return makeBaseDir(dir)
}

// WorktreePath decides where a task's worktree goes: base/slug, or --path
// (relative to the base dir). It must lie inside the base dir with no
// symlink on the way (baseDir itself is resolved already; linkedBase is
// the same dir as configured, before resolving), else it is a usage error;
// an existing path is accepted only as an empty folder.
func WorktreePath(baseDir, linkedBase, slugName, want string) (string, error) {
	p := filepath.Join(baseDir, slugName)
	if want != "" {
		p = want
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		p = filepath.Clean(p)
		if rel, err := filepath.Rel(linkedBase, p); err == nil && fsutil.Within(linkedBase, p) {
			p = filepath.Join(baseDir, rel)
		}
	}
	if p == baseDir {
		return "", exitcode.Usagef("worktree path %s is the base dir itself: choose a folder inside it", p)
	}
	if !fsutil.Within(baseDir, p) {
		return "", exitcode.Usagef("worktree path %s lies outside the base dir %s (set wt.baseDir to put worktrees elsewhere)", p, baseDir)
	}
	real, err := fsutil.ResolveExisting(p)
	if err != nil {
		return "", exitcode.Failedf("cannot resolve %s: %v", p, fsutil.UnwrapPathErr(err))
	}
	if real != p {
		return "", exitcode.Usagef("worktree path %s goes through a symlink (to %s): refusing to create a worktree there", p, real)
	}
	if st, err := os.Lstat(p); err == nil {
		if !st.IsDir() {
			return "", exitcode.RefusedAs(exitcode.KindConflict, "%s exists and is not a directory: remove it or choose another --path", p)
		}
		if fsutil.HoldsEntries(p) {
			return "", exitcode.RefusedAs(exitcode.KindConflict, "%s exists and is not empty: remove it or choose another --path", p)
		}
	}
	return p, nil
}
