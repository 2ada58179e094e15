package settings

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
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
	s.holdTo("wt.baseDir", "set another folder with git config wt.baseDir DIR", notAPlace, func() {
		s.BaseDir, s.BaseDirScope = DefaultBaseDir(mainDir), ""
	})
	if s.BaseDirScope == ScopeGitwt && !s.GitwtTrusted() && !UntrustedBaseDirAllowed(mainDir, s.BaseDir) {
		s.IgnoreGitwt("wt.baseDir", s.BaseDir, "an untrusted .gitwt may put worktrees only in a folder of the main worktree or in one beside it named after the repository; git wt trust accepts the file as it is")
		s.BaseDir, s.BaseDirScope = DefaultBaseDir(mainDir), ""
	}
	s.holdTo("wt.branchPrefix", "set another prefix with git config wt.branchPrefix PREFIX", notAPrefix, func() {
		s.BranchPrefix = "wt/"
	})
}

// holdTo applies a rule to the value of key in effect (broken says why it
// breaks the rule, "" when it does not): one from a .gitwt is ignored
// with a warning, and useDefault puts the default in its place; the
// user's own is Invalid, with hint, what to do instead.
func (s *Settings) holdTo(key, hint string, broken func(string) string, useDefault func()) {
	v, ok := s.Get(key)
	if !ok {
		return
	}
	why := broken(v.Value)
	switch {
	case why == "":
	case v.Scope == ScopeGitwt:
		s.IgnoreGitwt(key, v.Value, why)
		useDefault()
	default:
		s.Invalid = append(s.Invalid, fmt.Errorf("%s %q (%s config): %s; %s", key, v.Value, v.Scope, why, hint))
	}
}

// notAPlace says why a base dir or branch prefix, as configured, is not
// one git-wt uses (SPEC §19): git could read it as an option, or it
// would put a control character (a newline) into folder or branch names;
// "" when neither.
func notAPlace(v string) string {
	switch {
	case strings.HasPrefix(strings.TrimSpace(v), "-"):
		return "it starts with -, which git would read as an option"
	case strings.ContainsFunc(v, unicode.IsControl):
		return "it holds a control character or a newline"
	}
	return ""
}

// notAPrefix is notAPlace for wt.branchPrefix, which also may not reach
// into git-wt's own refs.
func notAPrefix(v string) string {
	if strings.HasPrefix(v, OwnRefsPrefix) {
		return fmt.Sprintf("task branches may not start with %s, where git-wt keeps its own refs", OwnRefsPrefix)
	}
	return notAPlace(v)
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
	if rel, err := filepath.Rel(mainDir, dir); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return true
	}
	name := filepath.Base(mainDir)
	return filepath.Dir(dir) == filepath.Dir(mainDir) && dir != mainDir && strings.HasPrefix(filepath.Base(dir), name)
}
