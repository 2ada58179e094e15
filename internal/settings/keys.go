package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Setting is one key git-wt reads, declared once: its name, its default
// (as the man page prints it, and parsed by the same reader as a
// configured value, so that the two cannot disagree), what it means,
// whether a committed .gitwt needs git wt trust for it, and how its value
// is read into the snapshot.
type Setting struct {
	Name    string
	Default string // "" when unset means nothing
	Meaning string
	// Runs: the setting runs commands, so from a committed .gitwt it
	// applies only once trusted (SPEC §4, §14); the others apply at once.
	Runs bool
	// Reaches: the setting acts beyond the worktree (it pushes to a
	// remote), so from a committed .gitwt it too applies only once
	// trusted (SPEC §14's trust classes).
	Reaches bool
	// UntrustedOnly, when set, is the one value a committed .gitwt gives
	// the setting before it is trusted (wt.submodules false: its other
	// values clone); the others wait for git wt trust (SPEC §14).
	UntrustedOnly string
	// read sets the snapshot's field from the value in effect (the
	// default when none is configured); nil for the keys whose reading
	// needs more than their last value (resolve reads those).
	read func(s *Settings, value string) error
}

// Table is every setting git-wt reads, in the order the man page lists
// them. A test checks that every wt.* key the code names is here.
var Table = []Setting{
	{Name: "wt.baseDir", Default: "../<repo>-worktrees", Meaning: "where worktrees go; a relative path is relative to the main worktree, ~ is your home; not inside .git, a worktree or a tracked path (inside the main worktree it is added to .git/info/exclude); it may hold the main worktree (.. puts tasks beside the repository) and be shared by several repositories: outside the main worktree and other than the default, git-wt's own folders in it carry the repository's name (.pool-<repo>-<hash>); from an untrusted .gitwt only inside the main worktree or beside it, named after the repository"},
	text("wt.branchPrefix", "wt/", "prefix of task branches; may not start with git-wt/", func(s *Settings) *string { return &s.BranchPrefix }),
	count("wt.maxWorktrees", "0", "most task worktrees at once (0: no limit); new beyond it exits 4", func(s *Settings) *int { return &s.MaxWorktrees }),
	duration("wt.maxAge", "0", "gc removes clean, fully merged or pushed worktrees idle longer than this (7d, 36h; 0: never)", func(s *Settings) *time.Duration { return &s.MaxAge }),
	duration("wt.idleAfter", "7d", "a worktree nothing has touched for this long (its index, HEAD's reflog, its top-level entries) counts as idle: list --all's verdict says safe only then, and gc --foreign removes only such worktrees", func(s *Settings) *time.Duration { return &s.IdleAfter }),
	count("wt.maxCount", "0", "gc keeps at most this many (0: no limit), removing the least recently used clean ones first", func(s *Settings) *int { return &s.MaxCount }),
	size("wt.maxTotalSize", "0", "gc frees disk until all worktrees together use less than this (20G; 0: no limit): first idle tasks' build output (wt.reclaim), then warm pool entries, then least recently used clean worktrees; a fill makes no entry that would reach it", func(s *Settings) *int64 { return &s.MaxTotalSize }),
	trusted(Setting{Name: "wt.reclaim", Default: DefaultReclaim, Meaning: "names of build-output folders (space-separated) that gc --reclaim, and gc over wt.maxTotalSize, deletes from idle tasks where git ignores them whole: never a tracked or unignored file, never through a symlink; git wt init sets the task up again (\"\": none)",
		read: func(s *Settings, v string) (err error) { s.Reclaim, err = ParseReclaim(v); return err }}),
	duration("wt.reclaimAfter", "3d", "gc --reclaim leaves a task's build output alone until the task has been idle this long (no git wt use, no change to its index, HEAD or top-level entries)", func(s *Settings) *time.Duration { return &s.ReclaimAfter }),
	{Name: "wt.init", Runs: true, Meaning: "shell command run (sh -c) in each new worktree; multi-valued: run in order, stopping at the first failure; it and what it starts end when its git wt is killed"},
	{Name: "wt.hook", Runs: true, Meaning: "read as wt.init when wt.init is unset (the key of k1LoW's git-wt)"},
	{Name: "wt.copy", Meaning: "multi-valued; gitignore-style patterns of ignored files and folders copied from the main worktree into each new worktree (a committed .worktreeinclude adds more)"},
	{Name: "wt.port", Meaning: "multi-valued; names of environment variables (PORT, API_PORT) that each get a TCP port of the task's own, free on this host and held by no other task, for the task's life; in the init's and exec's environment, git wt env, show, list --json and docker-args; a name is upper case letters, digits and _ ending in PORT, not starting with GIT_ or WT_ (another is refused, exit 2, or ignored with a warning from .gitwt)"},
	{Name: "wt.portRange", Default: "20000-29999", Meaning: "the range wt.port's ports come from", read: func(s *Settings, v string) error { return s.parsePortRange(v) }},
	{Name: "wt.envFile", Meaning: "a path in the worktree (.env.local) where new writes the task's environment as a dotenv block (# git-wt begin ... # git-wt end) after wt.copy's copy, keeping the rest of the file, its mode and its line ends; replaced whole by a rename; kept out of git status by .git/info/exclude", read: func(s *Settings, v string) error { return s.parseEnvFile(v) }},
	{Name: "wt.sparse", Meaning: "multi-valued; directories (cone mode) that new tasks check out, with the files at the root; nothing else is ever written (new --sparse DIR for one task)"},
	boolean("wt.sparseInherit", "true", "a task started from inside a sparse worktree checks out the same directories", func(s *Settings) *bool { return &s.SparseInherit }),
	{Name: "wt.pool", Default: "0", Runs: true, Meaning: "how many spare checkouts the warm pool keeps ready, each made with wt.copy and wt.poolInit, for new to claim in place of a checkout (0: no pool); see git wt pool",
		read: func(s *Settings, v string) error { return readCount(v, &s.Pool) }},
	{Name: "wt.poolInit", Runs: true, Meaning: "multi-valued; shell commands run (sh -c) in each pool entry when it is made, for setup that does not depend on the task (installing dependencies); WT_MAIN, WT_BASE and WT_PATH are set; it must leave the entry clean, and what it makes must still work after a rename; it and what it starts end when its fill is killed"},
	{Name: "wt.submodules", Default: "auto", UntrustedOnly: "false", Meaning: "a new task's submodules: auto (the ones the main worktree has initialised, recursively, at the task's commits, cloned from the main worktree's module repositories with their objects hard-linked: no network), true (auto's, and every other submodule from its URL), false (none)",
		read: func(s *Settings, v string) error { return s.parseSubmodules(v) }},
	{Name: "wt.preRemove", Runs: true, Meaning: "multi-valued; shell commands run (sh -c) in a task's worktree, with its environment, before rm, merge cleanup or gc removes it (docker compose down); one that fails keeps the task (exit 3) unless rm --force"},
	{Name: "wt.deleteHook", Runs: true, Meaning: "read as wt.preRemove when wt.preRemove is unset (the key of k1LoW's git-wt)"},
	{Name: "wt.symlink", Runs: true, Meaning: "multi-valued; ignored directories of the main worktree (node_modules) that each new task gets as a symlink to the main worktree's rather than a copy: shared, so a change in one task changes every task's (see the README)"},
	trusted(boolean("wt.gcMerged", "false", "plain gc also does gc --merged: asks gh for the tasks' pull requests and removes the clean tasks whose PR was merged on the forge", func(s *Settings) *bool { return &s.GCMerged })),
	boolean("wt.composeProject", "true", "each task's environment has COMPOSE_PROJECT_NAME=<repo>-<slug>-<hash of the clone and slug> (lower case letters, digits, _ and -), so that two tasks' docker compose up never share containers, nor one task's in two clones", func(s *Settings) *bool { return &s.ComposeProject }),
	duration("wt.poolMaxAge", "1d", "gc drains pool entries older than this, then refills the pool", func(s *Settings) *time.Duration { return &s.PoolMaxAge }),
	count("wt.poolMaxBehind", "100", "gc drains pool entries more commits than this behind their base, then refills the pool", func(s *Settings) *int { return &s.PoolMaxBehind }),
	count("wt.staleAfter", "50", "list --json marks a task stale when its branch is more commits than this behind its base (git wt sync brings it up)", func(s *Settings) *int { return &s.StaleAfter }),
	boolean("wt.cleanupOnMerge", "true", "the post-merge hook removes clean task worktrees whose branch got merged", func(s *Settings) *bool { return &s.CleanupOnMerge }),
	boolean("wt.deleteBranch", "true", "removing a task also deletes its branch when that loses no commits", func(s *Settings) *bool { return &s.DeleteBranch }),
	text("wt.containerWorkdir", "/workspace", "workdir used by docker-args", func(s *Settings) *string { return &s.ContainerWorkdir }),
	duration("wt.lockTimeout", "2m", "how long a command waits for the repository lock", func(s *Settings) *time.Duration { return &s.LockTimeout }),
	duration("wt.rmWait", "1s", "how long rm waits for the background deletion of a removed task's files: one that fails within it makes rm exit 1 naming the folder and the reason (rm --wait waits until the files are deleted)", func(s *Settings) *time.Duration { return &s.RmWait }),
	duration("wt.orphanGrace", "10m", "orphans younger than this are left alone, and an operation whose process cannot be seen (a sandbox) counts as running until this long after it last changed the record", func(s *Settings) *time.Duration { return &s.OrphanGrace }),
	duration("wt.gcInterval", "24h", "how often new runs the orphan part of gc (0: never)", func(s *Settings) *time.Duration { return &s.GCInterval }),
	{Name: "wt.claimRemote", Reaches: true, Meaning: "the remote through which machines claim tasks: new claims the task there first and exits 4 when another machine holds it; unset: claims are local only", read: func(s *Settings, v string) error { s.ClaimRemote = strings.TrimSpace(v); return nil }},
	{Name: "wt.claimRef", Default: "refs/git-wt/claims/", Reaches: true, Meaning: "the ref folder on the claim remote that holds the claims; a host that refuses refs outside refs/heads/ needs one under it (refs/heads/git-wt-claims/), where claims are only ever moved forward and released by a commit that says so", read: func(s *Settings, v string) error { return s.parseClaimRef(v) }},
	duration("wt.claimHeartbeat", "5m", "a task's claim is refreshed at most this often when it commits, pushes, syncs or its agent reports status, in the background", func(s *Settings) *time.Duration { return &s.ClaimHeartbeat }),
	duration("wt.claimTTL", "1h", "another machine's claim is stale once this machine has seen it unchanged this long, by its own clock; only a stale claim with no open pull request can be taken over (new --take-over)", func(s *Settings) *time.Duration { return &s.ClaimTTL }),
	{Name: "wt.machineId", Reaches: true, Meaning: "this clone's name in claims, kept as set; unset: an id generated for the clone and kept in <common dir>/wt/machine-id, made anew (and said once) when the clone is copied or the machine restarts", read: func(s *Settings, v string) error { s.MachineID = strings.TrimSpace(v); return nil }},
	{Name: "wt.trusted", Meaning: "written by git wt trust: the SHA-256 of the .gitwt content whose commands may run; never read from .gitwt itself"},
	{Name: "color.wt", Meaning: "colour: always, never, or auto (on terminals only); unset: color.ui decides; NO_COLOR and --no-color turn it off"},
}

// sameValue says whether two values of a setting mean the same: as
// booleans when both are (false, no, off, 0), else as words.
func sameValue(a, b string) bool {
	x, errA := ParseBool(a)
	y, errB := ParseBool(b)
	if errA == nil && errB == nil {
		return x == y
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// The readers of the usual kinds of value.

func text(name, def, meaning string, field func(*Settings) *string) Setting {
	return Setting{Name: name, Default: def, Meaning: meaning, read: func(s *Settings, v string) error {
		*field(s) = v
		return nil
	}}
}

// trusted marks k as one a committed .gitwt sets only once trusted: it
// acts beyond the worktree (asks gh, say), though it runs no command.
func trusted(k Setting) Setting {
	k.Runs = true
	return k
}

func count(name, def, meaning string, field func(*Settings) *int) Setting {
	return Setting{Name: name, Default: def, Meaning: meaning, read: func(s *Settings, v string) error { return readCount(v, field(s)) }}
}

func readCount(v string, field *int) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number", v)
	}
	*field = n
	return nil
}

func duration(name, def, meaning string, field func(*Settings) *time.Duration) Setting {
	return Setting{Name: name, Default: def, Meaning: meaning, read: func(s *Settings, v string) (err error) {
		*field(s), err = ParseDuration(v)
		return err
	}}
}

func size(name, def, meaning string, field func(*Settings) *int64) Setting {
	return Setting{Name: name, Default: def, Meaning: meaning, read: func(s *Settings, v string) (err error) {
		*field(s), err = ParseSize(v)
		return err
	}}
}

func boolean(name, def, meaning string, field func(*Settings) *bool) Setting {
	return Setting{Name: name, Default: def, Meaning: meaning, read: func(s *Settings, v string) (err error) {
		*field(s), err = ParseBool(v)
		return err
	}}
}

// readTable sets the field of every setting that has a reader, from its
// last configured value or its default, and returns the first bad value.
func (s *Settings) readTable() error {
	var first error
	for _, k := range Table {
		if k.read == nil {
			continue
		}
		v := k.Default
		if got, ok := s.inEffect(k); ok {
			v = got.Value
		}
		if v == "" {
			continue
		}
		if err := k.read(s, v); err != nil && first == nil {
			first = s.Bad(k.Name, err)
		}
	}
	return first
}

// inEffect is the value of k that applies: the last one configured, but
// for a setting that runs commands, not one from a .gitwt the user has not
// trusted (which is said once in Warnings).
func (s *Settings) inEffect(k Setting) (Value, bool) {
	values := s.All(k.Name)
	for i := len(values) - 1; i >= 0; i-- {
		v := values[i]
		if (k.Runs || k.Reaches) && v.Scope == ScopeGitwt && !s.GitwtTrusted() {
			why := "it runs commands"
			if k.Reaches {
				why = "it pushes to a remote"
			}
			s.IgnoreGitwt(k.Name, v.Value, why+", so it applies once you trust the file (git wt trust)")
			continue
		}
		if k.UntrustedOnly != "" && v.Scope == ScopeGitwt && !s.GitwtTrusted() && !sameValue(v.Value, k.UntrustedOnly) {
			s.IgnoreGitwt(k.Name, v.Value, "it clones the repositories a commit names, so only "+k.UntrustedOnly+" applies until you trust the file (git wt trust)")
			continue
		}
		return v, true
	}
	return Value{}, false
}

// DefaultReclaim is wt.reclaim's default: the build output and dependency
// folders of the common toolchains.
const DefaultReclaim = "node_modules target dist build .next .venv __pycache__ .gradle .turbo"

// ParseReclaim reads wt.reclaim: folder names separated by spaces. A name
// is one path component: no separator, not . or .., not .git (deleting
// a worktree's .git would unregister it).
func ParseReclaim(v string) ([]string, error) {
	names := strings.Fields(v)
	for _, n := range names {
		if n == "." || n == ".." || strings.EqualFold(n, ".git") || strings.ContainsAny(n, "/\\\x00") {
			return nil, fmt.Errorf("%q is not a folder name (one path component, not .git)", n)
		}
	}
	return names, nil
}
