package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Locating a repository costs a `git rev-parse`, a process as expensive as
// the rest of `git wt list` together. Commands that read git config anyway
// can do without it: Discover walks up from the current directory as git
// does, reading files only, and `git config --list --show-origin`, run
// from the same directory, says which repository git found there: the
// file its local config came from. Only when the two agree, in a layout
// where they cannot agree by accident, is the discovery used (Confirm);
// anything unusual goes to rev-parse, which knows every rule.

// Discovered is a repository found from a directory without running git,
// not to be used before Confirm.
type Discovered struct {
	repo Repo
	// nested: another .git (or git dir) exists above the one found, so a
	// config origin relative to the toplevel could name either.
	nested bool
}

// CommonDir is the common dir found (not confirmed yet).
func (d *Discovered) CommonDir() string { return d.repo.CommonDir }

// GitDir is the git dir found (not confirmed yet).
func (d *Discovered) GitDir() string { return d.repo.GitDir }

// Toplevel is the worktree found (not confirmed yet).
func (d *Discovered) Toplevel() string { return d.repo.Toplevel }

// discoveryVars change where or how git looks for a repository; with any
// set, only rev-parse may say.
var discoveryVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE"}

// Discover finds the repository containing dir the way git does in the
// usual layouts (a .git directory, or a .git file pointing at a linked
// worktree's git dir), or returns nil where git's own rules could differ:
// a variable that steers discovery, a start inside a git dir or a bare
// repository, a file system boundary crossed, an unreadable .git.
func Discover(dir string) *Discovered {
	for _, v := range discoveryVars {
		if _, ok := os.LookupEnv(v); ok {
			return nil
		}
	}
	start, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	dev, ok := device(start)
	if !ok {
		return nil
	}
	for d := start; ; d = filepath.Dir(d) {
		if isGitDir(d) { // a bare repository, or inside a git dir
			return nil
		}
		if d2, ok := device(d); !ok || d2 != dev {
			return nil
		}
		found, ok := dotGit(d)
		if !ok {
			return nil
		}
		if found != nil {
			if strings.HasPrefix(start+"/", found.repo.GitDir+"/") {
				return nil
			}
			found.nested = gitAbove(d)
			return found
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// dotGit looks at dir/.git: nil and true when there is none (look
// further up), nil and false when git could read it otherwise than here.
func dotGit(dir string) (*Discovered, bool) {
	path := filepath.Join(dir, ".git")
	st, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	gitDir := path
	if st.Mode().IsRegular() {
		_, admin, err := AdminDir(dir)
		if err != nil {
			return nil, false
		}
		gitDir = admin
	}
	gitDir, err = filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil, false
	}
	common, ok := gitDirCommon(gitDir)
	if !ok {
		return nil, false
	}
	if common, err = filepath.EvalSymlinks(common); err != nil {
		return nil, false
	}
	return &Discovered{repo: Repo{
		Toplevel:  dir,
		GitDir:    gitDir,
		CommonDir: common,
		HooksDir:  filepath.Join(common, "hooks"),
	}}, true
}

// isGitDir is git's test of a git dir: a HEAD file, and objects and refs
// directories (in the common dir, for a linked worktree's git dir).
func isGitDir(dir string) bool {
	_, ok := gitDirCommon(dir)
	return ok
}

// gitDirCommon is isGitDir that also returns the common dir it checked.
func gitDirCommon(dir string) (string, bool) {
	if st, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	common := CommonDirOf(dir)
	for _, sub := range []string{"objects", "refs"} {
		if st, err := os.Stat(filepath.Join(common, sub)); err != nil || !st.IsDir() {
			return "", false
		}
	}
	return common, true
}

// gitAbove says whether a folder above dir holds a .git or is a git dir:
// a repository around the one found, which git might have found instead.
func gitAbove(dir string) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || isGitDir(d) {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

func device(path string) (uint64, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	dev, _, ok := fileIDs(st)
	return dev, ok
}

// Confirm returns the discovered repository if git's config listing, run
// from the same directory, shows that git found the same one: its local
// config comes from this common dir's config file, and no setting
// (core.bare, core.worktree, core.hooksPath) moves the worktree or the
// hooks from where the layout puts them. Else it returns nil.
func (d *Discovered) Confirm(config []ConfigEntry) *Repo {
	want := filepath.Join(d.repo.CommonDir, "config")
	confirmed := false
	for _, e := range config {
		// In any scope: a global core.hooksPath moves the hooks too.
		switch strings.ToLower(e.Key) {
		case "core.worktree", "core.hookspath":
			return nil
		case "core.bare":
			if v := strings.ToLower(e.Value); v != "false" && v != "no" && v != "off" && v != "0" {
				return nil
			}
		}
		path, ok := strings.CutPrefix(e.Origin, "file:")
		if !ok || e.Scope != "local" {
			continue
		}
		// git prints the path as it opened it: absolute, or relative to
		// the toplevel, where it runs; relative is unambiguous only when
		// no other repository is around this one.
		if !filepath.IsAbs(path) {
			if d.nested {
				return nil
			}
			path = filepath.Join(d.repo.Toplevel, path)
		}
		if path == want {
			confirmed = true
		} else if real, err := filepath.EvalSymlinks(path); err == nil && real == want {
			confirmed = true
		}
	}
	if !confirmed {
		return nil
	}
	repo := d.repo
	return &repo
}

// Complete fills in what a confirmed discovery lacks, as Locate does: git's
// version (from the stamp in the common dir) and the main worktree.
func (r *Runner) Complete(ctx context.Context, repo *Repo) (*Repo, error) {
	v, err := r.checkVersion(ctx, repo.Toplevel, repo.CommonDir)
	if err != nil {
		return nil, err
	}
	r.version, repo.Version = v, v
	main, err := r.mainWorktree(ctx, repo)
	if err != nil {
		return nil, err
	}
	repo.MainDir = main
	r.SetRepository(repo.CommonDir, repo.MainDir)
	return repo, nil
}

// IsGitDir is git's test of a git dir (a HEAD file, objects and refs
// folders), files only: for a folder another program named (SPEC §20's
// runner roots).
func IsGitDir(dir string) bool { return isGitDir(dir) }
