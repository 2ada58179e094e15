package settings

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The rules of SPEC §14 that a setting can be held to without git or the
// file system: a committed .gitwt that breaks them is ignored with a
// warning (Warnings), the user's own config is refused by the commands
// that would act on it (Invalid). The rules that need the repository's
// layout or its tracked files are the task package's (basedir.go).

// OwnRefsPrefix is the branch prefix that would reach into git-wt's own
// refs: short names under git-wt/ resolve to refs/git-wt/ first.
const OwnRefsPrefix = "git-wt/"

// DefaultBaseDir is where worktrees go without wt.baseDir: beside the
// main worktree at mainDir, in "<repo>-worktrees".
func DefaultBaseDir(mainDir string) string {
	return filepath.Join(filepath.Dir(mainDir), filepath.Base(mainDir)+"-worktrees")
}

// settlePlaces applies the rules to wt.baseDir and wt.branchPrefix once
// both are read.
func (s *Settings) settlePlaces(mainDir string) {
	if v, ok := s.Get("wt.baseDir"); ok && v.Value != "" {
		s.BaseDirScope = v.Scope
	}
	if s.BaseDirScope == ScopeGitwt && !s.GitwtTrusted() && !UntrustedBaseDirAllowed(mainDir, s.BaseDir) {
		s.IgnoreGitwt("wt.baseDir", s.BaseDir, "an untrusted .gitwt may put worktrees only in a folder of the main worktree or in one beside it named after the repository; git wt trust accepts the file as it is")
		s.BaseDir, s.BaseDirScope = DefaultBaseDir(mainDir), ""
	}
	if v, ok := s.Get("wt.branchPrefix"); ok && strings.HasPrefix(v.Value, OwnRefsPrefix) {
		why := fmt.Sprintf("task branches may not start with %s, where git-wt keeps its own refs", OwnRefsPrefix)
		if v.Scope == ScopeGitwt {
			s.IgnoreGitwt("wt.branchPrefix", v.Value, why)
			s.BranchPrefix = "wt/"
		} else {
			s.Invalid = append(s.Invalid, fmt.Errorf("wt.branchPrefix %q (%s config): %s; set another prefix with git config wt.branchPrefix PREFIX", v.Value, v.Scope, why))
		}
	}
}

// IgnoreGitwt notes that the .gitwt value of key was ignored, and why.
func (s *Settings) IgnoreGitwt(key, value, why string) {
	s.Warnings = append(s.Warnings, fmt.Sprintf("ignored %s = %s from %s: %s", key, value, GitwtFile, why))
}

// SayWarnings passes warn each of Warnings not said yet: a command that
// acts on its settings in several places says each warning once.
func (s *Settings) SayWarnings(warn func(format string, args ...any)) {
	for _, w := range s.Warnings[s.said:] {
		warn("%s", w)
	}
	s.said = len(s.Warnings)
}

// UntrustedBaseDirAllowed reports whether an untrusted .gitwt may name dir
// as the base dir: a folder inside the main worktree at mainDir, or one
// directly in its parent whose name starts with the repository's (as the
// default "<repo>-worktrees" does). dir is absolute and clean.
func UntrustedBaseDirAllowed(mainDir, dir string) bool {
	if rel, err := filepath.Rel(mainDir, dir); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
		return true
	}
	name := filepath.Base(mainDir)
	return filepath.Dir(dir) == filepath.Dir(mainDir) && dir != mainDir && strings.HasPrefix(filepath.Base(dir), name)
}
