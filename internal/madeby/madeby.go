// Package madeby names the tool that made a worktree (SPEC §20 "Who made
// it"): git-wt, an agent runner, another worktree manager, or plain git.
// It looks only at paths, the branch checked out and what the caller
// already knows (git-wt's own records and pool), never at a file another
// tool wrote: the answer is information for list and gc --foreign, and a
// path is all those tools document. Pure: the caller passes the
// environment in. The README's "Cleaning up a machine" lists each rule
// with its source.
package madeby

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// Maker is who made a worktree, as list prints it (MADE BY, made_by).
type Maker string

// The makers, in the order Of tries their rules.
const (
	GitWT     Maker = "git-wt"
	Codex     Maker = "codex"
	Cursor    Maker = "cursor"
	Conductor Maker = "conductor"
	Gwq       Maker = "gwq"
	Claude    Maker = "claude"
	Copilot   Maker = "copilot"
	Workmux   Maker = "workmux"
	Worktrunk Maker = "worktrunk"
	Git       Maker = "git"
)

// Worktree is what the rules look at of one worktree.
type Worktree struct {
	Path   string // its folder, as git lists it
	Main   string // the repository's main worktree
	Branch string // the branch checked out (short name), "" when detached
	// Own says git-wt made it: it has a task record, or is a warm pool
	// entry.
	Own bool
}

// Env is what the rules need of the user's environment.
type Env struct {
	Home      string // $HOME (Windows: %USERPROFILE%); "" turns off the rules under it
	CodexHome string // $CODEX_HOME; "" for Codex's default, ~/.codex
	// Fold compares paths without case, where the file system folds it
	// (Folds). On Windows case is folded always (fsutil.PathKey).
	Fold bool
}

// EnvFrom reads Env from getenv (os.Getenv), the home folder where
// os.UserHomeDir finds it (homeVar), folding where the file system does
// (ignoreCase: core.ignorecase).
func EnvFrom(getenv func(string) string, ignoreCase bool) Env {
	return Env{Home: getenv(homeVar), CodexHome: getenv("CODEX_HOME"), Fold: Folds(runtime.GOOS, ignoreCase)}
}

// Folds says whether paths are compared without case: only on the
// systems whose usual file systems fold it (macOS's APFS, Windows' NTFS),
// and only where git found this one does (core.ignorecase). A Linux file
// system tells two folders apart by case, so a folder named like a
// runner's root in another case is not it.
func Folds(goos string, ignoreCase bool) bool {
	return ignoreCase && (goos == "darwin" || goos == "windows")
}

// Of names who made the worktree w: git-wt when it is git-wt's own, else
// the first tool whose documented layout holds its path, else git.
func Of(w Worktree, env Env) Maker {
	if w.Own {
		return GitWT
	}
	for _, r := range Roots(env) {
		if r.holds(w.Path, env.Fold) {
			return r.Maker
		}
	}
	for _, r := range rules {
		if r.holds(w, env) {
			return r.maker
		}
	}
	return Git
}

// Root is a folder where an agent runner keeps the worktrees it makes,
// each a worktree of the user's repository somewhere else. list
// --machine walks these folders (internal/machine) to find repositories.
type Root struct {
	Maker Maker
	Path  string
	// depth is how many folders below Path the runner's worktrees lie:
	// 0 for any depth.
	depth int
}

// Roots are the runners' worktree roots of SPEC §20 under env, as each
// runner documents its default: $CODEX_HOME/worktrees (default
// ~/.codex/worktrees), ~/.cursor/worktrees, ~/conductor/workspaces and
// gwq's ~/worktrees; without an absolute home folder, only CODEX_HOME's.
// Runners that keep their worktrees in or beside the repository (Claude
// Code, worktrunk, workmux, Copilot) have no root: the rules find them,
// and the repository's own worktree list holds them.
func Roots(env Env) []Root {
	roots := []Root{
		{Maker: Codex, Path: codexRoot(env)},
		{Maker: Cursor, Path: inHome(env, ".cursor", "worktrees")},
		{Maker: Conductor, Path: inHome(env, "conductor", "workspaces")},
		// gwq's ~/worktrees is a common name: only its default
		// template's depth, <host>/<owner>/<repo>/<branch>, counts.
		{Maker: Gwq, Path: inHome(env, "worktrees"), depth: 4},
	}
	return slices.DeleteFunc(roots, func(r Root) bool { return r.Path == "" })
}

// holds says whether path is one of the runner's worktrees under r.
func (r Root) holds(path string, fold bool) bool {
	if r.depth == 0 {
		return deeper(r.Path, path, 1, fold)
	}
	rest, ok := below(r.Path, path, fold)
	return ok && len(rest) == r.depth
}

// rule is one tool's layout beside or inside the main worktree.
type rule struct {
	maker Maker
	holds func(w Worktree, env Env) bool
}

// rules are tried in order, after the roots (a runner's root is its own
// whatever the repository).
var rules = []rule{
	{Claude, func(w Worktree, env Env) bool {
		return deeper(filepath.Join(w.Main, ".claude", "worktrees"), w.Path, 1, env.Fold)
	}},
	{Copilot, copilotMade},
	{Workmux, func(w Worktree, env Env) bool {
		rest, ok := below(besideMain(w.Main, "__worktrees"), w.Path, env.Fold)
		return ok && len(rest) == 1
	}},
	{Worktrunk, worktrunkMade},
}

// copilotMadePrefix starts the branch (after git.branchPrefix) and the
// folder of a VS Code Copilot background agent's worktree:
// copilot-worktree-<UTC time>.
const copilotMadePrefix = "copilot-worktree-"

// copilotMade: VS Code's git extension puts the worktree in
// <main>.worktrees/<branch>, and Copilot names the branch
// [git.branchPrefix]copilot-worktree-<time>.
func copilotMade(w Worktree, env Env) bool {
	rest, ok := below(besideMain(w.Main, ".worktrees"), w.Path, env.Fold)
	if ok && len(rest) == 1 && strings.HasPrefix(rest[0], copilotMadePrefix) {
		return true
	}
	_, last, _ := cutLast(w.Branch, "/")
	return strings.HasPrefix(last, copilotMadePrefix)
}

// worktrunkMade: worktrunk's default worktree-path,
// "{{ repo_path }}/../{{ repo }}.{{ branch | sanitize }}", a folder beside
// the main worktree named after it and the branch, / and \ made -.
func worktrunkMade(w Worktree, env Env) bool {
	if w.Branch == "" {
		return false
	}
	sanitized := strings.NewReplacer("/", "-", `\`, "-").Replace(w.Branch)
	return samePath(besideMain(w.Main, "."+sanitized), w.Path, env.Fold)
}

// codexRoot is where the Codex app keeps its worktrees:
// $CODEX_HOME/worktrees, $CODEX_HOME defaulting to ~/.codex. A CODEX_HOME
// that is not an absolute path names no folder Codex would use.
func codexRoot(env Env) string {
	if env.CodexHome != "" {
		if !filepath.IsAbs(env.CodexHome) {
			return ""
		}
		return filepath.Join(env.CodexHome, "worktrees")
	}
	return inHome(env, ".codex", "worktrees")
}

// inHome is the folder parts under the home folder, "" without one.
func inHome(env Env, parts ...string) string {
	if env.Home == "" || !filepath.IsAbs(env.Home) {
		return ""
	}
	return filepath.Join(append([]string{env.Home}, parts...)...)
}

// besideMain is the folder beside the main worktree named after it with
// suffix: <parent>/<main's name><suffix>.
func besideMain(main, suffix string) string {
	main = filepath.Clean(main)
	return filepath.Join(filepath.Dir(main), filepath.Base(main)+suffix)
}

// deeper says whether path lies at least depth folders below root.
func deeper(root, path string, depth int, fold bool) bool {
	rest, ok := below(root, path, fold)
	return ok && len(rest) >= depth
}

// below is the one comparison of paths in this package: path's
// components under root, both as fsutil.PathKey has them (cleaned; on
// Windows git's C:/ as C:\, without \\?\, case folded), compared without
// case also when fold (macOS); ok is false when path is not root or under
// it, or root is "". A path that has root's text as a prefix but not as a
// folder (~/.codex/worktreesX) is not under it.
func below(root, path string, fold bool) (rest []string, ok bool) {
	if root == "" || path == "" {
		return nil, false
	}
	r := strings.Split(fsutil.PathKey(root), string(filepath.Separator))
	p := strings.Split(fsutil.PathKey(path), string(filepath.Separator))
	if len(p) < len(r) {
		return nil, false
	}
	for i := range r {
		if !sameName(r[i], p[i], fold) {
			return nil, false
		}
	}
	return p[len(r):], true
}

// samePath says whether a and b are one path (below, with nothing under).
func samePath(a, b string, fold bool) bool {
	rest, ok := below(a, b, fold)
	return ok && len(rest) == 0
}

func sameName(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// cutLast cuts s around the last sep: the whole of s is after when there
// is none.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}
