package settings

// Key is one setting git-wt reads, as its documentation (the man page's
// CONFIGURATION section) shows it.
type Key struct {
	Name    string
	Default string // "" when unset means nothing
	Meaning string
}

// Keys are the settings git-wt reads, in the order the man page lists
// them. A test checks that every wt.* key the code names is here.
var Keys = []Key{
	{"wt.baseDir", "../<repo>-worktrees", "where worktrees go; a relative path is relative to the main worktree, ~ is your home; not inside .git, a worktree or a tracked path (inside the main worktree it is added to .git/info/exclude); from an untrusted .gitwt only inside the main worktree or beside it, named after the repository"},
	{"wt.branchPrefix", "wt/", "prefix of task branches; may not start with git-wt/"},
	{"wt.maxWorktrees", "0", "most task worktrees at once (0: no limit); new beyond it exits 4"},
	{"wt.maxAge", "0", "gc removes clean, fully merged or pushed worktrees idle longer than this (7d, 36h; 0: never)"},
	{"wt.maxCount", "0", "gc keeps at most this many (0: no limit), removing the least recently used clean ones first"},
	{"wt.maxTotalSize", "0", "gc removes least recently used clean worktrees until all together use less disk than this (20G; 0: no limit)"},
	{"wt.init", "", "shell command run (sh -c) in each new worktree; multi-valued: run in order, stopping at the first failure"},
	{"wt.hook", "", "read as wt.init when wt.init is unset (the key of k1LoW's git-wt)"},
	{"wt.copy", "", "multi-valued; gitignore-style patterns of ignored files and folders copied from the main worktree into each new worktree (a committed .worktreeinclude adds more)"},
	{"wt.port", "", "multi-valued; names of environment variables (PORT, API_PORT) that each get a TCP port of the task's own, free on this host and held by no other task, for the task's life; in the init's and exec's environment, git wt env, show, list --json and docker-args; applies from an untrusted .gitwt"},
	{"wt.portRange", "20000-29999", "the range wt.port's ports come from"},
	{"wt.envFile", "", "a path in the worktree (.env.local) where new writes the task's environment as a dotenv file, kept out of git status by .git/info/exclude; applies from an untrusted .gitwt"},
	{"wt.cleanupOnMerge", "true", "the post-merge hook removes clean task worktrees whose branch got merged"},
	{"wt.deleteBranch", "true", "removing a task also deletes its branch when that loses no commits"},
	{"wt.containerWorkdir", "/workspace", "workdir used by docker-args"},
	{"wt.lockTimeout", "2m", "how long a command waits for the repository lock"},
	{"wt.orphanGrace", "10m", "orphans younger than this are left alone"},
	{"wt.gcInterval", "24h", "how often new runs the orphan part of gc (0: never)"},
	{"wt.trusted", "", "written by git wt trust: the SHA-256 of the .gitwt content whose commands may run"},
	{"color.wt", "", "colour: always, never, or auto (on terminals only); unset: color.ui decides; NO_COLOR and --no-color turn it off"},
}
