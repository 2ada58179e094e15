package settings

import (
	"path/filepath"
	"strings"
)

// k1LoW's git-wt is run by the same `git wt` command and keeps its
// settings under the same wt.* keys (git compares keys ignoring case, so
// its wt.basedir is git-wt's wt.baseDir). SPEC §19: a key read as what it
// means where git-wt has the same idea — {gitroot} in wt.baseDir, wt.hook
// (wt.init), wt.deletehook (wt.preRemove) —, every other one named once in
// a warning with git-wt's equivalent, never acted on.

// gitroot is k1LoW's template for the repository's folder name in
// wt.basedir (its default is ../{gitroot}-wt).
const gitroot = "{gitroot}"

// expandGitroot puts the main worktree's folder name in place of
// {gitroot}, so that k1LoW's base dir is a folder of that name, never one
// named {gitroot}.
func expandGitroot(dir, mainDir string) string {
	return strings.ReplaceAll(dir, gitroot, filepath.Base(mainDir))
}

// foreignKeys are k1LoW's keys that git-wt does not read, each with what
// a git-wt user does instead (without the "wt." prefix, which the
// documentation test reserves for keys git-wt reads).
var foreignKeys = []struct{ name, instead string }{
	{"copyignored", "git-wt copies the ignored files that wt.copy names (gitignore patterns)"},
	{"copyuntracked", "git-wt copies no untracked file that git does not ignore: commit it, or ignore it and name it in wt.copy"},
	{"copymodified", "git-wt copies no modified tracked file: commit or stash it first"},
	{"nocopy", "git-wt copies only what wt.copy names"},
	{"remover", "git wt rm removes a task's worktree and the branch git-wt made for it"},
	{"nocd", "git-wt never changes the shell's folder: cd \"$(git wt new T)\", or wtcd from git wt shell-init"},
	{"relative", "git-wt keeps the paths git worktree keeps"},
}

// ForeignKey is a key of k1LoW's git-wt that is set here and that git-wt
// does not read.
type ForeignKey struct {
	Key     string // as git spells it: wt.copyignored
	Instead string // what git-wt does, or has, instead
}

// Foreign lists the keys of k1LoW's git-wt that are set and that git-wt
// does not read, in foreignKeys' order.
func (s *Settings) Foreign() []ForeignKey {
	var set []ForeignKey
	for _, k := range foreignKeys {
		if len(s.All("wt."+k.name)) > 0 {
			set = append(set, ForeignKey{Key: "wt." + k.name, Instead: k.instead})
		}
	}
	return set
}
