package hooks

import (
	"context"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/settings"
)

// Target is the hooks dir git uses for a repository, and what would make
// writing there reach beyond this clone.
type Target struct {
	Dir string
	// Scope is the config layer that set core.hooksPath; "" when unset.
	Scope settings.Scope
	// InWorktree: the dir lies in a worktree of the repository, among the
	// project's files (husky, lefthook) or files a hook manager generates
	// there (husky's .husky/_).
	InWorktree bool
	// Tracked: git tracks files in that dir.
	Tracked bool
}

// Locate reads where repo's hooks live (git's own answer, asked once by
// git.Locate) and where core.hooksPath was set.
func Locate(ctx context.Context, g *git.Runner, repo *git.Repo, s *settings.Settings) (Target, error) {
	t := Target{Dir: repo.HooksDir}
	// git reads core.hooksPath from its own config only, never from .gitwt.
	for _, v := range s.All("core.hooksPath") {
		if v.Scope != settings.ScopeGitwt {
			t.Scope = v.Scope
		}
	}
	if fsutil.Within(repo.CommonDir, t.Dir) || fsutil.Within(repo.GitDir, t.Dir) {
		return t, nil
	}
	for _, wt := range []string{repo.Toplevel, repo.MainDir} {
		if !fsutil.Within(wt, t.Dir) {
			continue
		}
		t.InWorktree = true
		rel, err := filepath.Rel(wt, t.Dir)
		if err != nil {
			return t, err
		}
		if t.Tracked, err = g.Index().Tracked(ctx, wt, rel); err != nil {
			return t, err
		}
		break
	}
	return t, nil
}

// Check refuses (exit 3), unless force, a hooks dir that git-wt must not
// edit on its own: one among the project's files, whose hooks the user
// adds git-wt's Line to instead, and one set in global or system config,
// which every repository uses.
func (t Target) Check(force bool) error {
	switch {
	case force:
		return nil
	case t.Tracked:
		return exitcode.Refusedf("core.hooksPath is %s, a folder tracked in this repository (husky, lefthook): git-wt does not edit tracked files; add the lines above to those hooks, or use --force", t.Dir)
	case t.InWorktree:
		return exitcode.Refusedf("core.hooksPath is %s, inside the worktree, where a hook manager (husky) writes its hooks: add the lines above to the hooks it runs, or use --force", t.Dir)
	case t.Scope == settings.ScopeGlobal || t.Scope == settings.ScopeSystem:
		return exitcode.Refusedf("core.hooksPath (%s) is set in your %s git config: installing there would affect every repository; use --force to install there anyway", t.Dir, t.Scope)
	}
	return nil
}
