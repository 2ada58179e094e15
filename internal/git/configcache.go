package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/async"
)

// The config listing cache. Every command that reads settings runs `git
// config --list`, a process that costs as much as the rest of `git wt
// list --no-status` together and sits on its critical path. Its output
// depends only on the files git reads, the variables that steer it, who
// owns the repository (safe.directory) and the git binary: when all of
// those are as they were, the listing is too. So a listing is kept in
// <common dir>/wt/config-cache/<worktree>.json with a fingerprint of each
// (the files by device, inode, size and modification time; absent files
// as absent, so creating one is seen), and used only while every part of
// the fingerprint still matches. What the fingerprint cannot cover is
// never kept: a listing with include or includeIf (what they read can
// depend on the branch or the path), origins other than the watched files
// and the command line, a file changed in the last two seconds (a second
// change within one tick of its clock would leave the same time).
//
// Anything that can write the git dir can write the cache too (an agent
// whose sandbox guards only .git/config and .git/hooks), so a kept
// listing is never a source of the settings that run commands, grant
// trust or reach beyond the worktree (SPEC §19): it holds only the keys
// its reader says it may keep (ConfigKeys.Kept), read back through the
// same test, and the others are asked of git every time they are needed.
// It holds nothing else of the user's config (no tokens: docker-args
// mounts the git dir into containers), and only its owner may read it.

// configCacheVersion changes when the cache's format or meaning does.
const configCacheVersion = 2

// racyWindow is how recently a watched file may have changed for a listing
// to be kept: a file system's clock ticks in steps (jiffies on ext4), and
// a change within the step of the one before leaves the same time.
const racyWindow = 2 * time.Second

// configVars are the variables that change what `git config --list`
// reads or lists (those that change where the repository is make
// Discover give up before the cache is asked).
var configVars = []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// configCache is one kept listing and what it was read from.
type configCache struct {
	Version int               `json:"version"`
	Key     string            `json:"key"`   // a hash of the git binary, the variables, the user, the repository's places
	Files   map[string]string `json:"files"` // watched path: its fingerprint ("" when absent)
	Owners  map[string]string `json:"owners"`
	Listing string            `json:"listing"`
}

// configCachePath is where the listing of the worktree d found is kept.
func configCachePath(commonDir, toplevel string) string {
	sum := sha256.Sum256([]byte(toplevel))
	return filepath.Join(commonDir, "wt", "config-cache", hex.EncodeToString(sum[:8])+".json")
}

// ForgetConfigCache deletes the kept listing of the worktree at toplevel
// (one that is removed).
func ForgetConfigCache(commonDir, toplevel string) {
	os.Remove(configCachePath(commonDir, toplevel))
}

// ConfigKeys splits what git config lists between a kept listing and git
// itself.
type ConfigKeys struct {
	// Kept says whether a key, as git lists it, may be kept and read back:
	// only those of settings that run nothing, grant nothing and reach
	// nowhere, and the few of git's own that git-wt reads.
	Kept func(key string) bool
	// Asked is the pattern (git config --get-regexp) of the keys read from
	// git whenever the listing comes from the cache: those of the other
	// keys that the caller acts on; "" for none.
	Asked string
	// AskedNames, when set, are the last parts of the keys Asked matches,
	// in lower case: git is then asked only when a source it reads may
	// set one of them (mayName); where none does, none is set, and no git
	// runs. Only for a caller to which a key the shortcut misses does no
	// harm (the system config is named by the kept listing alone).
	AskedNames []string
}

// CachedConfigList is the kept part (keys.Kept) of the listing of `git
// config` (ConfigListArgs) run in the worktree d found, when one is kept
// and all it was read from is as it was.
func CachedConfigList(d *Discovered, keys ConfigKeys) (string, bool) {
	c, ok := cachedConfig(d)
	if !ok {
		return "", false
	}
	return keptPart(ParseConfigList(c.Listing), keys.Kept), true
}

// cachedConfig is the kept listing of the worktree d found, when all it
// was read from is as it was.
func cachedConfig(d *Discovered) (*configCache, bool) {
	path := configCachePath(d.repo.CommonDir, d.repo.Toplevel)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var c configCache
	if json.Unmarshal(data, &c) != nil || c.Version != configCacheVersion {
		os.Remove(path) // an earlier git-wt's, which may hold all of the user's config
		return nil, false
	}
	if c.Key != configKey(d) {
		return nil, false
	}
	for path, print := range c.Files {
		if fingerprint(path) != print {
			return nil, false
		}
	}
	for path, uid := range c.Owners {
		if owner(path) != uid {
			return nil, false
		}
	}
	return &c, true
}

// keptPart is the listing of the entries whose keys kept says may be kept,
// in git's format.
func keptPart(entries []ConfigEntry, kept func(key string) bool) string {
	var b strings.Builder
	for _, e := range entries {
		if kept(e.Key) {
			b.WriteString(e.Scope + "\x00" + e.Origin + "\x00" + e.Key + "\n" + e.Value + "\x00")
		}
	}
	return b.String()
}

// StartConfigList runs `git config` (ConfigListArgs) in dir, and returns
// the wait for its output. With d, the repository found at dir, the
// listing comes from the cache when it can — its kept part, and what git
// says of the keys.Asked — and its kept part is saved for the next command
// when it can be trusted. cached says that the cache answered: the output
// holds only the kept keys and keys.Asked.
func (r *Runner) StartConfigList(ctx context.Context, dir string, d *Discovered, keys ConfigKeys) func() (out string, cached bool, err error) {
	list := func() (string, bool, error) {
		out, err := r.Run(ctx, dir, ConfigListArgs...)
		return out, false, err
	}
	if d == nil {
		return list
	}
	if c, ok := cachedConfig(d); ok {
		listing := keptPart(ParseConfigList(c.Listing), keys.Kept)
		if keys.Asked == "" || keys.AskedNames != nil && !mayName(d, c, keys.AskedNames) {
			return func() (string, bool, error) { return listing, true, nil }
		}
		asked := async.Start(func() (string, error) { return r.AskConfig(ctx, dir, keys.Asked) })
		return func() (string, bool, error) {
			out, err := asked.Get()
			return listing + out, true, err
		}
	}
	started := time.Now()
	if changedLately(configFiles(d), started) {
		return list // nothing to keep: spare the probe
	}
	system := make(chan string, 1)
	go func() { system <- r.systemConfigPath(ctx, dir) }()
	return func() (string, bool, error) {
		out, _, err := list()
		if err == nil {
			saveConfigList(d, out, <-system, started, keys.Kept)
		}
		return out, false, err
	}
}

// mayName says whether git config, run in the worktree d found, may list
// a key whose last part is one of names (lower case): whether a file it
// reads or a variable that steers it names one, or it includes another
// file, or a file cannot be read. The kept listing c is no source of such
// keys; the files themselves are, for much less than a git process: a
// key's name stands whole on its line. Only git can name the system file:
// it is the one c was read from.
func mayName(d *Discovered, c *configCache, names []string) bool {
	if _, ok := os.LookupEnv("GIT_CONFIG"); ok {
		return true // git config reads that file alone
	}
	mentions := func(text string) bool {
		text = strings.ToLower(text)
		return strings.Contains(text, "include") || slices.ContainsFunc(names, func(n string) bool { return strings.Contains(text, n) })
	}
	for _, kv := range os.Environ() {
		if name, value, _ := strings.Cut(kv, "="); (name == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(name, "GIT_CONFIG_KEY_")) && mentions(value) {
			return true
		}
	}
	files := configFiles(d)
	for path := range c.Files {
		if !slices.Contains(files, path) {
			files = append(files, path)
		}
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) || mentions(string(data)) {
			return true
		}
	}
	return false
}

// AskConfig lists the keys of git config in dir that match pattern (git
// config --get-regexp), as ConfigListArgs lists them; "" when none is
// set.
func (r *Runner) AskConfig(ctx context.Context, dir, pattern string) (string, error) {
	out, err := r.Run(ctx, dir, "config", "-z", "--show-scope", "--show-origin", "--get-regexp", "--", pattern)
	if ExitCode(err) == 1 {
		return "", nil
	}
	return out, err
}

// systemConfigPath is the file git reads as its system config, which
// may not exist (so no listing names it): git opens it in the editor it
// is told to use, here echo, which prints it. "" when git would not say.
func (r *Runner) systemConfigPath(ctx context.Context, dir string) string {
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"config", "--system", "--edit"}, Env: []string{"GIT_EDITOR=echo"}})
	path := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(path) || strings.Contains(path, "\n") {
		return ""
	}
	return path
}

// saveConfigList keeps the part of the listing of the worktree d found
// whose keys kept says may be kept, read from the time started, when every
// file the listing came from is watched and none changed too recently to
// tell a later change.
func saveConfigList(d *Discovered, listing, system string, started time.Time, kept func(key string) bool) {
	if system == "" {
		return
	}
	watched := append(configFiles(d), system)
	entries := ParseConfigList(listing)
	for _, e := range entries {
		key := strings.ToLower(e.Key)
		if strings.HasPrefix(key, "include.") || strings.HasPrefix(key, "includeif.") {
			return
		}
		switch path, isFile := strings.CutPrefix(e.Origin, "file:"); {
		case e.Origin == "command line:":
		case !isFile:
			return // standard input, a blob: nothing to watch
		case !slices.Contains(watched, absFrom(d.repo.Toplevel, path)):
			return
		}
	}
	if changedLately(watched, started) {
		return
	}
	c := configCache{Version: configCacheVersion, Key: configKey(d), Files: map[string]string{}, Owners: map[string]string{}, Listing: keptPart(entries, kept)}
	for _, path := range watched {
		if c.Files[path] = fingerprint(path); c.Files[path] == "?" {
			return
		}
	}
	for _, path := range []string{d.repo.Toplevel, d.repo.GitDir, d.repo.CommonDir} {
		if c.Owners[path] = owner(path); c.Owners[path] == "?" {
			return
		}
	}
	if data, err := json.Marshal(c); err == nil {
		writeAtomic(configCachePath(d.repo.CommonDir, d.repo.Toplevel), data, 0o600) // only its owner may read it
	}
}

// configFiles are the files git reads for the listing of the worktree d
// found, but for the system config, which only git can name.
func configFiles(d *Discovered) []string {
	return append([]string{filepath.Join(d.repo.CommonDir, "config"), filepath.Join(d.repo.GitDir, "config.worktree")}, globalConfigPaths()...)
}

// changedLately says whether one of the files at paths changed within the
// racy window before now: a listing read from them then is not kept.
func changedLately(paths []string, now time.Time) bool {
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && st.ModTime().After(now.Add(-racyWindow)) {
			return true
		}
	}
	return false
}

// globalConfigPaths are the files git reads as the global config.
func globalConfigPaths() []string {
	if path, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		return []string{path}
	}
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var paths []string
	if xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	return paths
}

// absFrom is path as an absolute path, read from dir when relative (git
// prints a local config's origin relative to the toplevel it runs in).
func absFrom(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// configKey is what must not have changed besides the files: the git
// binary, the variables that steer git config, the user, and where the
// repository's parts are; hashed, for the variables may hold tokens (git
// -c http.extraHeader=...).
func configKey(d *Discovered) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%s\x00%s\x00%s", binaryKey(), os.Geteuid(), d.repo.Toplevel, d.repo.GitDir, d.repo.CommonDir)
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(configVars, name) || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
			b.WriteString("\x00" + kv)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// fingerprint names the file at path as it is now: its device, inode,
// size and modification time; "" when it does not exist, "?" when it
// cannot be read (never kept, so never matched).
func fingerprint(path string) string {
	st, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return ""
	case err != nil:
		return "?"
	}
	dev, ino, ok := fileIDs(st)
	if !ok {
		return "?"
	}
	return fmt.Sprintf("%d %d %d %d", dev, ino, st.Size(), st.ModTime().UnixNano())
}

// owner is the user id of the owner of path, which git's safe.directory
// check compares with the user's.
func owner(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	if uid, ok := fileOwner(st); ok {
		return fmt.Sprint(uid)
	}
	return "?"
}
