package settings

import (
	"regexp"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
)

// cacheKeys splits git config between the kept listing and git itself
// (SPEC §19): anything that can write the git dir can write the cache, so
// the cache keeps only the keys of the settings that run nothing, grant
// nothing, reach nowhere and decide no place git-wt writes to, and the
// few of git's own that git-wt reads —
// never another of the user's settings (a token) — and the keys of the
// others are asked of git every time.
var cacheKeys = git.ConfigKeys{Kept: keptInCache, Asked: askedPattern()}

// gitKeys are the keys of git's own that git-wt reads, as git lists them
// (section and name in lower case): where the repository is
// (git.Discovered.Confirm, which also needs one local key of every
// repository: core.repositoryformatversion), whether the file system
// folds case, whether worktrees have their own config, merge's and push's
// defaults, and colour. A branch's keys (branch.<name>.*) are kept too:
// push reads its remotes, rm whether it has any to drop.
var gitKeys = []string{"core.bare", "core.worktree", "core.hookspath", "core.repositoryformatversion",
	"core.ignorecase", "extensions.worktreeconfig", "merge.ff", "remote.pushdefault", "color.ui"}

// fromGitOnly says whether k is of SPEC §14's classes that no cache may be
// the source of: it runs commands, acts beyond the worktree, grants trust
// (wt.trusted) or clones (wt.submodules); or it decides where git-wt
// writes (wt.baseDir: where checkouts go, the trash whose contents go).
func (k Setting) fromGitOnly() bool {
	return k.Runs || k.Reaches || k.Name == "wt.trusted" || k.Name == "wt.submodules" || k.Name == baseDirKey
}

// baseDirKey is the one setting that the harmless commands too ask of git
// (harmlessKeys): they write where the base dir is (a deletion's failure
// said once) and tell the warm pool's folders in it.
const baseDirKey = "wt.baseDir"

// harmlessKeys split git config for a command that acts on no setting
// that runs commands, grants trust or reaches beyond the worktree (list,
// statusline): of the others it asks only for the base dir, and only when
// a config file names one — the hot paths of SPEC §9 then run no git. A
// base dir the files' look misses (a system config the kept listing no
// longer names) leaves these commands the default, which is git-wt's own.
var harmlessKeys = git.ConfigKeys{
	Kept:       keptInCache,
	Asked:      `^` + regexp.QuoteMeta(strings.ToLower(baseDirKey)) + `$`,
	AskedNames: []string{strings.ToLower(baseDirKey[len("wt."):])},
}

// keptInCache says whether key, as git lists it, may be kept.
func keptInCache(key string) bool {
	key = strings.ToLower(key)
	return keptKeys[key] || strings.HasPrefix(key, "branch.") && strings.Count(key, ".") >= 2
}

// keptKeys are the keys keptInCache keeps, but a branch's.
var keptKeys = func() map[string]bool {
	kept := map[string]bool{}
	for _, key := range gitKeys {
		kept[key] = true
	}
	for _, k := range Table {
		kept[strings.ToLower(k.Name)] = !k.fromGitOnly()
	}
	for _, k := range foreignKeys { // k1LoW's, only ever named in a warning
		kept["wt."+k.name] = true
	}
	return kept
}()

// askedPattern is the pattern (git config --get-regexp, which sees
// section and name in lower case) of the keys git is asked for: those of
// the settings that are fromGitOnly, and submodule.<name>.url, which
// wt.submodules auto reads (and which may hold a token).
func askedPattern() string {
	var names []string
	for _, k := range Table {
		if k.fromGitOnly() {
			names = append(names, regexp.QuoteMeta(strings.ToLower(k.Name)))
		}
	}
	return `^(` + strings.Join(names, "|") + `|submodule\..*\.url)$`
}
