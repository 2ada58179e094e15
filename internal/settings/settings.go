// Package settings reads git-wt's configuration once into a snapshot: git
// config (every scope) over the committed .gitwt file (SPEC §4).
package settings

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/ports"
)

// Scope says where a value came from.
type Scope string

// Scopes from lowest to highest precedence.
const (
	ScopeGitwt    Scope = "gitwt" // the committed .gitwt file
	ScopeSystem   Scope = "system"
	ScopeGlobal   Scope = "global"
	ScopeLocal    Scope = "local"
	ScopeWorktree Scope = "worktree"
	ScopeCommand  Scope = "command" // git -c, GIT_CONFIG_PARAMETERS
)

// Value is one value of a key, with where it came from.
type Value struct {
	Value string
	Scope Scope
	// Origin is the file that set it (absolute), or git's name for
	// another source ("command line:"), as `git config --show-origin`
	// says; "" when unknown.
	Origin string
}

// Where says where v was set, for a message: "set in" the file and its
// scope ("set in /home/me/.gitconfig, global config"), or "set by" the
// command line.
func (v Value) Where() string {
	switch {
	case v.Scope == ScopeCommand:
		return "set by git -c or GIT_CONFIG_PARAMETERS"
	case v.Scope == ScopeGitwt:
		return "set in " + v.Origin + ", the committed defaults"
	case strings.HasPrefix(v.Origin, "file:"):
		return "set in " + strings.TrimPrefix(v.Origin, "file:") + ", " + string(v.Scope) + " config"
	case v.Origin != "":
		return "set in " + v.Origin + " " + string(v.Scope) + " config"
	}
	return "set in " + string(v.Scope) + " config"
}

// Bad is the error for a bad value of key: it names the key, and the
// file or command line the winning value came from, so that the user
// knows what to edit.
func (s *Settings) Bad(key string, err error) error {
	if v, ok := s.Get(key); ok {
		return fmt.Errorf("bad config %s (%s): %v", key, v.Where(), err)
	}
	return fmt.Errorf("bad config %s: %v", key, err)
}

// GitwtFile is the name of the committed defaults file at the root of the
// main worktree.
const GitwtFile = ".gitwt"

// Settings is the snapshot of every setting git-wt uses.
type Settings struct {
	values map[string][]Value // lower-case key → values, lowest precedence first

	BaseDir          string // absolute
	BranchPrefix     string
	MaxWorktrees     int
	MaxAge           time.Duration
	MaxCount         int
	IdleAfter        time.Duration // wt.idleAfter: idle this long, a worktree may be safe to remove (SPEC §20)
	StaleAfter       int           // wt.staleAfter: behind more than this is stale
	Pool             int           // wt.pool: spare checkouts kept ready (trusted values only)
	PoolMaxAge       time.Duration
	PoolMaxBehind    int
	Sparse           []string // wt.sparse: the directories new tasks check out
	SparseInherit    bool     // wt.sparseInherit
	Submodules       string   // wt.submodules: auto, true or false
	ComposeProject   bool     // wt.composeProject
	GCMerged         bool     // wt.gcMerged: gc also does gc --merged
	MaxTotalSize     int64
	Reclaim          []string      // wt.reclaim: the build-output folder names gc --reclaim deletes
	ReclaimAfter     time.Duration // wt.reclaimAfter: how long a task is idle before its build output goes
	Init             []Value       // trust decided by scope; see InitCommands
	Copy             []string
	Ports            []string    // wt.port: the names of the variables that get a port each
	PortRange        ports.Range // wt.portRange
	EnvFile          string      // wt.envFile: relative to the worktree, "" for none
	CleanupOnMerge   bool
	DeleteBranch     bool
	ContainerWorkdir string
	LockTimeout      time.Duration
	OrphanGrace      time.Duration
	RmWait           time.Duration // wt.rmWait
	GCInterval       time.Duration
	ClaimRemote      string        // wt.claimRemote: "" for local claims only
	ClaimRef         string        // wt.claimRef: the claim refs' folder, ending in /
	ClaimHeartbeat   time.Duration // wt.claimHeartbeat
	ClaimTTL         time.Duration // wt.claimTTL
	MachineID        string        // wt.machineId: "" for the generated one
	IgnoreCase       bool          // core.ignorecase: the file system folds case
	GitwtSHA256      string        // of the .gitwt file, "" when there is none
	TrustedSHA256    string        // wt.trusted: the .gitwt content the user trusted

	// BaseDirScope is where BaseDir came from: "" for the default.
	BaseDirScope Scope
	// Warnings say which .gitwt settings were ignored, and why.
	Warnings []string
	// Invalid are settings of the user's own config that break SPEC §14's
	// rules: the commands that would act on them refuse (exit 2).
	Invalid []error

	said int // how many of Warnings SayWarnings said
}

// Pending is a settings read under way: Start runs `git config` at once,
// so that it overlaps with locating the repository.
type Pending struct {
	list *async.Value[listed]
	// ask reads the keys of the settings that act from git, for a
	// listing that lacks them.
	ask func() ([]git.ConfigEntry, error)
}

// listed is what git config listed, and whether it lacks some of the
// asked keys (cacheKeys.Asked): the cache answered a harmless read.
type listed struct {
	entries []git.ConfigEntry
	partial bool
}

// Start begins reading git config from dir; found, when not nil, is the
// repository discovered there, whose kept listing is used when it is
// still true (git's config listing cache) — for the settings that run
// nothing, grant nothing and reach nowhere: the others are asked of git
// every time (SPEC §19).
func Start(ctx context.Context, g *git.Runner, dir string, found *git.Discovered) *Pending {
	return start(ctx, g, dir, found, cacheKeys)
}

// StartHarmless is Start for a command that acts on no setting that runs
// commands, grants trust or reaches beyond the worktree (list): when the
// kept listing answers, git is asked only for the base dir (harmlessKeys),
// and those stay unset — but where a .gitwt needs wt.trusted to be read
// (Finish).
func StartHarmless(ctx context.Context, g *git.Runner, dir string, found *git.Discovered) *Pending {
	return start(ctx, g, dir, found, harmlessKeys)
}

func start(ctx context.Context, g *git.Runner, dir string, found *git.Discovered, keys git.ConfigKeys) *Pending {
	wait := g.StartConfigList(ctx, dir, found, keys)
	return &Pending{
		list: async.Start(func() (listed, error) {
			out, cached, err := wait()
			return listed{git.ParseConfigList(out), cached && keys.Asked != cacheKeys.Asked}, err
		}),
		ask: func() ([]git.ConfigEntry, error) {
			out, err := g.AskConfig(ctx, dir, cacheKeys.Asked)
			return git.ParseConfigList(out), err
		},
	}
}

// Entries waits for git config and returns what it listed, origins
// included (which say what repository git found).
func (p *Pending) Entries() []git.ConfigEntry {
	l, _ := p.list.Get()
	return l.entries
}

// Finish waits for git config and adds the .gitwt file of the main
// worktree at mainDir, the lowest layer.
func (p *Pending) Finish(mainDir string) (*Settings, error) {
	l, err := p.list.Get()
	if err != nil && git.ExitCode(err) != 1 { // 1: no config at all
		return nil, err
	}
	gitwt, sum, err := readGitwt(filepath.Join(mainDir, GitwtFile))
	if err != nil {
		return nil, err
	}
	entries := l.entries
	if l.partial && sum != "" {
		// Whether the .gitwt is trusted decides what of it applies.
		asked, err := p.ask()
		if err != nil {
			return nil, err
		}
		entries = append(entries, asked...)
	}
	own, others := ownKeys(gitwt)
	s := &Settings{values: layer(own, configValues(entries, mainDir)), GitwtSHA256: sum}
	for _, kv := range others {
		s.IgnoreGitwt(kv.key, kv.Value.Value, "a .gitwt sets only git-wt's own wt.* settings; set it with git config if you want it")
	}
	if err := s.resolve(mainDir); err != nil {
		return nil, err
	}
	return s, nil
}

// ownKeys splits a .gitwt's values between git-wt's own keys (wt.*) and
// the others, each of those once (the first value): a .gitwt is git-wt's
// settings file (SPEC §4), which sets none of git's settings (a
// remote.pushDefault would send push to another remote) nor another
// tool's.
func ownKeys(gitwt []keyValue) (own, others []keyValue) {
	seen := map[string]bool{}
	for _, kv := range gitwt {
		switch {
		case strings.HasPrefix(kv.key, "wt."):
			own = append(own, kv)
		case !seen[kv.key]:
			seen[kv.key] = true
			others = append(others, kv)
		}
	}
	return own, others
}

// layer merges the values of every source in precedence order, lowest
// first, so that the last value of a key wins and a multi-valued key lists
// its values in the order git would: the committed .gitwt, then git config
// as `git config --list` prints it (system, global, local, worktree, and
// `-c` on the command line).
func layer(gitwt, gitConfig []keyValue) map[string][]Value {
	values := map[string][]Value{}
	for _, src := range [][]keyValue{gitwt, gitConfig} {
		for _, kv := range src {
			values[kv.key] = append(values[kv.key], kv.Value)
		}
	}
	return values
}

type keyValue struct {
	key string
	Value
}

// configValues are git config's values as layers take them. git names a
// file in the repository relative to the worktree's top (".git/config"),
// which is the main worktree's when the path is relative (a linked
// worktree's files are named by absolute paths). A worktree's
// config.worktree is the agent's to write (SPEC §19): of it, only git's
// sparse settings are taken.
func configValues(entries []git.ConfigEntry, mainDir string) []keyValue {
	kvs := make([]keyValue, 0, len(entries))
	for _, e := range entries {
		if Scope(e.Scope) == ScopeWorktree && !git.WorktreeConfigAllowed(e.Key) {
			continue
		}
		origin := e.Origin
		if file, ok := strings.CutPrefix(origin, "file:"); ok && !filepath.IsAbs(file) {
			origin = "file:" + filepath.Join(mainDir, file)
		}
		kvs = append(kvs, keyValue{key: canonicalKey(e.Key), Value: Value{Value: e.Value, Scope: Scope(e.Scope), Origin: origin}})
	}
	return kvs
}

// Get returns the winning value of key and whether it is set.
func (s *Settings) Get(key string) (Value, bool) {
	vs := s.values[canonicalKey(key)]
	if len(vs) == 0 {
		return Value{}, false
	}
	return vs[len(vs)-1], true
}

// HasSection reports whether any key is set under section ("branch.wt/x").
func (s *Settings) HasSection(section string) bool {
	prefix := canonicalKey(section + ".x")
	prefix = prefix[:len(prefix)-1]
	for key := range s.values {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

// All returns every value of a multi-valued key, in precedence order.
func (s *Settings) All(key string) []Value { return s.values[canonicalKey(key)] }

// canonicalKey spells a key as git compares it: section and name in lower
// case, a subsection ("section.Sub.name") as written.
func canonicalKey(key string) string {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

func (s *Settings) str(key, def string) string {
	if v, ok := s.Get(key); ok {
		return v.Value
	}
	return def
}

// resolve fills the typed fields, reporting the first invalid value:
// those of Table from their readers, then the few that take more than
// their last value.
func (s *Settings) resolve(mainDir string) error {
	// A .gitwt cannot vouch for itself: only the user's own config trusts
	// it. Read first: the table's settings that run commands ask.
	for _, v := range s.All("wt.trusted") {
		if v.Scope != ScopeGitwt {
			s.TrustedSHA256 = v.Value
		}
	}
	err := s.readTable()
	s.BaseDir = s.baseDir(mainDir)
	if v, ok := s.Get("core.ignoreCase"); ok { // git's own: the file system folds case
		var cerr error
		if s.IgnoreCase, cerr = ParseBool(v.Value); err == nil && cerr != nil {
			err = s.Bad("core.ignoreCase", cerr)
		}
	}
	s.Init = s.All("wt.init")
	if len(s.Init) == 0 {
		s.Init = s.All("wt.hook") // k1LoW's git-wt
	}
	for _, v := range s.All("wt.copy") {
		s.Copy = append(s.Copy, v.Value)
	}
	if perr := s.parsePortNames(); err == nil && perr != nil {
		err = perr
	}
	for _, v := range s.All("wt.sparse") {
		dir, serr := CleanSparseDir(v.Value)
		if serr != nil && err == nil {
			err = fmt.Errorf("bad config wt.sparse (%s): %v", v.Where(), serr)
		}
		s.Sparse = append(s.Sparse, dir)
	}
	s.settlePlaces(mainDir)
	return err
}

// baseDir is wt.baseDir made absolute: "~" is the home directory,
// {gitroot} the main worktree's folder name (k1LoW's git-wt), a relative
// path is relative to the main worktree, and the default is
// "<repo>-worktrees" beside the main worktree.
func (s *Settings) baseDir(mainDir string) string {
	dir := expandGitroot(s.str("wt.baseDir", ""), mainDir)
	if dir == "" {
		return DefaultBaseDir(mainDir)
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[1:])
		}
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(mainDir, dir)
	}
	return filepath.Clean(dir)
}

// GitwtTrusted reports whether the user trusted the .gitwt file as it is
// now (`git wt trust` stored its SHA-256 in wt.trusted).
func (s *Settings) GitwtTrusted() bool {
	return s.GitwtSHA256 != "" && strings.EqualFold(s.TrustedSHA256, s.GitwtSHA256)
}

// InitCommands returns the init commands that may run, in order, and those
// from an untrusted .gitwt, which must not (SPEC §4). Commands from the
// user's own git config always run.
func (s *Settings) InitCommands() (run, untrusted []string) {
	return s.commands(s.Init)
}

// PoolInitCommands are InitCommands for wt.poolInit, run in each pool
// entry when it is made.
func (s *Settings) PoolInitCommands() (run, untrusted []string) {
	return s.commands(s.All("wt.poolInit"))
}

func (s *Settings) commands(values []Value) (run, untrusted []string) {
	trusted := s.GitwtTrusted()
	for _, v := range values {
		if v.Scope == ScopeGitwt && !trusted {
			untrusted = append(untrusted, v.Value)
		} else {
			run = append(run, v.Value)
		}
	}
	return run, untrusted
}

// CleanSparseDir checks a sparse directory (wt.sparse, new --sparse): a
// path relative to the worktree's root, inside it, that git reads as a
// directory and never as an option; it returns it without slashes at its
// ends.
func CleanSparseDir(dir string) (string, error) {
	clean := strings.Trim(filepath.ToSlash(strings.TrimSpace(dir)), "/")
	switch {
	case clean == "" || clean == ".":
		return "", fmt.Errorf("%q names no directory (leave --sparse out for a full checkout)", dir)
	case strings.HasPrefix(clean, "-"), strings.ContainsAny(clean, "\x00\n\r"):
		return "", fmt.Errorf("%q is not a directory name git-wt passes to git", dir)
	case slices.Contains(strings.Split(clean, "/"), ".."), slices.Contains(strings.Split(clean, "/"), ".git"):
		return "", fmt.Errorf("%q leaves the worktree or enters .git", dir)
	}
	return clean, nil
}

// parsePortNames reads wt.port: each name once, in order. A name outside
// SPEC §14's rule is ignored with a warning from a .gitwt; from the
// user's own config it is refused (exit 2), reported with where it was set
// (wt.port takes many values: the last may not be the culprit).
func (s *Settings) parsePortNames() error {
	for _, v := range s.All("wt.port") {
		name := strings.TrimSpace(v.Value)
		if err := ports.CheckName(name); err != nil {
			if v.Scope == ScopeGitwt {
				s.IgnoreGitwt("wt.port", name, err.Error())
				continue
			}
			return exitcode.Usagef("bad config wt.port (%s): %v", v.Where(), err)
		}
		if !slices.Contains(s.Ports, name) {
			s.Ports = append(s.Ports, name)
		}
	}
	return nil
}

// parseClaimRef reads wt.claimRef: a folder of full ref names (it must
// start with refs/), kept with one trailing slash so that a slug appended
// names one ref.
func (s *Settings) parseClaimRef(v string) error {
	p := strings.Trim(strings.TrimSpace(v), "/")
	if !strings.HasPrefix(p, "refs/") || strings.ContainsAny(p, " ~^:?*[\\\n") || strings.Contains(p, "..") {
		return fmt.Errorf("%q is not a ref folder (refs/git-wt/claims/, refs/heads/git-wt-claims/)", v)
	}
	s.ClaimRef = p + "/"
	return nil
}

// parsePortRange reads wt.portRange.
func (s *Settings) parsePortRange(v string) (err error) {
	s.PortRange, err = ports.ParseRange(v)
	return err
}

// parseEnvFile reads wt.envFile: a relative path inside the worktree with
// no glob character, no .. and no .git component (SPEC §14); the rest
// (tracked, symlinks) is checked where the file is written.
func (s *Settings) parseEnvFile(v string) error {
	p := strings.TrimSpace(v)
	if p == "" {
		return nil
	}
	if filepath.IsAbs(p) || strings.ContainsAny(p, "*?[\\\n") {
		return fmt.Errorf("%q is not a plain path relative to the worktree", p)
	}
	for _, c := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		if c == ".." || strings.EqualFold(c, ".git") {
			return fmt.Errorf("%q leaves the worktree or names .git", p)
		}
	}
	s.EnvFile = filepath.Clean(p)
	return nil
}

// parseSubmodules reads wt.submodules: auto, or a boolean.
func (s *Settings) parseSubmodules(v string) error {
	if strings.EqualFold(strings.TrimSpace(v), "auto") {
		s.Submodules = "auto"
		return nil
	}
	on, err := ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not auto, true or false", v)
	}
	s.Submodules = strconv.FormatBool(on)
	return nil
}

// WantsSubmodules says whether a new task's worktree gets submodules
// (SPEC §17): with wt.submodules auto, when the main worktree has
// initialised any (a submodule.<name>.url in the repository's config,
// which its linked worktrees share).
func (s *Settings) WantsSubmodules() bool {
	switch s.Submodules {
	case "true":
		return true
	case "false":
		return false
	}
	for key, values := range s.values {
		if strings.HasPrefix(key, "submodule.") && strings.HasSuffix(key, ".url") {
			for _, v := range values {
				if v.Scope == ScopeLocal {
					return true
				}
			}
		}
	}
	return false
}

// PreRemoveCommands are InitCommands for wt.preRemove, run in a worktree
// before it is removed.
func (s *Settings) PreRemoveCommands() (run, untrusted []string) {
	values := s.All("wt.preRemove")
	if len(values) == 0 {
		values = s.All("wt.deleteHook") // k1LoW's git-wt
	}
	return s.commands(values)
}

// SymlinkDirs are the directories of wt.symlink that each new task links
// to the main worktree's, cleaned, and those from an untrusted .gitwt,
// which are not linked (a link reaches beyond the worktree). A value that
// is no directory inside the worktree is left out with a warning.
func (s *Settings) SymlinkDirs() (link, untrusted []string) {
	link, untrusted = s.commands(s.All("wt.symlink"))
	kept := link[:0]
	for _, dir := range link {
		clean, err := CleanSparseDir(dir)
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("wt.symlink %v: ignored", err))
			continue
		}
		kept = append(kept, clean)
	}
	return kept, untrusted
}
