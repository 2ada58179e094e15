package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Submodules are the submodule operations (SPEC §17): a task's worktree
// gets its modules from the main worktree's module repositories, never
// from the network.
type Submodules struct{ git *Runner }

// Submodules returns the submodule operations.
func (r *Runner) Submodules() Submodules { return Submodules{r} }

// Keys reads the values of submodule.<name>.<field> from the
// config file at file (a repository's config, or a worktree's
// .gitmodules): name → value. A file that is missing or has none is an
// empty map.
func (s Submodules) Keys(ctx context.Context, dir, file, field string) (map[string]string, error) {
	out, err := s.git.Exec(ctx, Cmd{Dir: dir, Args: keysArgs(file, field)})
	if ExitCode(err) == 1 { // no such key
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseKeys(string(out), field), nil
}

func keysArgs(file, field string) []string {
	return []string{"config", "-f", file, "-z", "--get-regexp", `^submodule\..+\.` + field + `$`}
}

// parseKeys reads `git config -z --get-regexp` records ("key\nvalue\0"):
// a name may hold dots, so it is what lies between "submodule." and the
// last ".<field>".
func parseKeys(out, field string) map[string]string {
	keys := map[string]string{}
	for _, rec := range strings.Split(out, "\x00") {
		key, value, _ := strings.Cut(rec, "\n")
		name, ok := strings.CutPrefix(key, "submodule.")
		if !ok {
			continue
		}
		if name, ok = strings.CutSuffix(name, "."+strings.ToLower(field)); ok && name != "" {
			keys[name] = value
		}
	}
	return keys
}

// ModuleCheckout is a worktree or a submodule's worktree, Dir, and its
// git dir, GitDir, as the caller has proven them (WorktreeGitDir,
// ModuleGitDir): git runs there with both pinned, never looking for a
// repository through the .git in Dir, which the worktree's files (a
// committed symlink on the way, a path of "." in .gitmodules) can make
// another repository's. Its paths are literal: no pathspec magic, no
// wildcards.
type ModuleCheckout struct{ Dir, GitDir string }

func (at ModuleCheckout) cmd(args ...string) Cmd {
	return Cmd{Dir: at.Dir, InSubmodule: true, Args: args,
		Env: []string{"GIT_DIR=" + at.GitDir, "GIT_WORK_TREE=" + at.Dir, "GIT_LITERAL_PATHSPECS=1"}}
}

// Init initialises the submodules at paths in the submodule worktree at:
// their URLs go into its repository's config. Never run at a task's top
// level: a linked worktree shares the main worktree's config, where the
// main worktree's choice is already written.
func (s Submodules) Init(ctx context.Context, at ModuleCheckout, paths []string) error {
	_, err := s.git.Exec(ctx, at.cmd(append([]string{"submodule", "--quiet", "init", "--"}, paths...)...))
	return err
}

// Gitlinks says which of paths (relative to at's top) are gitlinks (a
// submodule's commit, mode 160000) of the tree at's HEAD holds, at
// exactly that path: .gitmodules can name any path, a symlink or "."
// included, and only a gitlink is a submodule.
func (s Submodules) Gitlinks(ctx context.Context, at ModuleCheckout, paths []string) (map[string]bool, error) {
	out, err := s.git.Exec(ctx, at.cmd(append([]string{"ls-tree", "-z", "--full-tree", "HEAD", "--"}, paths...)...))
	if err != nil {
		return nil, err
	}
	return parseGitlinks(string(out), paths), nil
}

// parseGitlinks reads `git ls-tree -z` entries ("<mode> <type>
// <object>\t<path>\0") and keeps those of paths that are gitlinks.
func parseGitlinks(out string, paths []string) map[string]bool {
	links := map[string]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		info, p, ok := strings.Cut(entry, "\t")
		if mode, _, _ := strings.Cut(info, " "); ok && mode == "160000" && slices.Contains(paths, p) {
			links[p] = true
		}
	}
	return links
}

// CheckModulePath says why a submodule path from .gitmodules is not one
// git-wt uses, or nil: it must be a clean relative path below the
// worktree, not the worktree itself ("." or empty), nor absolute, nor
// holding a "." or ".." component, nor a "//" or a trailing "/".
func CheckModulePath(p string) error {
	switch {
	case p == "" || p == ".":
		return errors.New("the path is the worktree itself")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return errors.New("the path is absolute")
	case path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../"):
		return errors.New("the path is not a clean path below the worktree")
	}
	return nil
}

// ModuleSource is one submodule to check out: its name, its path, its
// URL and, when the main worktree has one, the main's module repository
// From, which the objects then come from.
type ModuleSource struct {
	Name, Path, URL, From string
}

// Update checks out the submodules of srcs in at at the commits its tree
// records, git's output going to log. Those with a From are cloned
// from it with the file transport (objects hard-linked, no network):
// their URL is From for this command only (SetOrigin sets the clone's
// origin back to URL). The others are cloned from their URL, in a command
// of their own, with the file transport as the user's config has it:
// git-wt opens it to the main worktree's module repositories only, never
// to a path a commit's .gitmodules names (CVE-2022-39253). Every one is
// made active for the command, so that none is initialised in a config
// the main worktree shares. A name goes into git's config keys whole, by
// Cmd.Config: the callers check it first (CheckModuleName).
func (s Submodules) Update(ctx context.Context, at ModuleCheckout, srcs []ModuleSource, log io.Writer) error {
	for _, c := range updateCmds(at, srcs) {
		c.Stdout, c.Stderr = log, log
		if _, err := s.git.Exec(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func updateCmds(at ModuleCheckout, srcs []ModuleSource) []Cmd {
	type update struct {
		config []ConfigPair
		paths  []string
	}
	fromStores := update{config: []ConfigPair{{"protocol.file.allow", "always"}}}
	var fromURLs update
	for _, m := range srcs {
		u := &fromURLs
		if m.From != "" {
			u = &fromStores
			u.config = append(u.config, ConfigPair{"submodule." + m.Name + ".url", m.From})
		}
		u.config = append(u.config, ConfigPair{"submodule." + m.Name + ".active", "true"})
		u.paths = append(u.paths, m.Path)
	}
	var cmds []Cmd
	for _, u := range []update{fromStores, fromURLs} {
		if len(u.paths) > 0 {
			c := at.cmd(append([]string{"submodule", "update", "--"}, u.paths...)...)
			c.Config = u.config
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// CheckModuleName says why a submodule name from .gitmodules is not one
// git-wt uses, or nil: the rules of git's own check_submodule_name (not
// empty, no ".." component between "/" or "\\" on any platform), and no
// "=" (where git splits a -c setting), line break or other control
// character (a config key git refuses, a terminal's escapes).
func CheckModuleName(name string) error {
	if name == "" {
		return errors.New("the name is empty")
	}
	isSep := func(r rune) bool { return r == '/' || r == '\\' }
	if slices.Contains(strings.FieldsFunc(name, isSep), "..") {
		return errors.New("the name has a .. component")
	}
	if strings.Contains(name, "=") {
		return errors.New("the name holds =")
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return errors.New("the name holds a control character")
	}
	return nil
}

// ModuleStore is the main worktree's module repository of the submodule
// called name in the repository whose git dir is mainGit
// (<mainGit>/modules/<name>), or "" when there is none, mainGit is "",
// or the name is not one git-wt uses (CheckModuleName).
func ModuleStore(mainGit, name string) string {
	if mainGit == "" || CheckModuleName(name) != nil {
		return ""
	}
	dir := filepath.Join(mainGit, "modules", name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// SetOrigin sets the URL of the origin remote of the repository whose
// git dir is gitDir (proven by the caller: ModuleGitDir), in its own
// config, never in one git would find from a folder.
func (s Submodules) SetOrigin(ctx context.Context, gitDir, url string) error {
	_, err := s.git.Exec(ctx, Cmd{Dir: gitDir, Env: []string{"GIT_DIR=" + gitDir},
		Args: []string{"config", "--file=" + filepath.Join(gitDir, "config"), "--", "remote.origin.url", url}})
	return err
}

// ModuleGitDir is the git dir of the submodule called name of the
// repository whose git dir is parentGitDir (proven: WorktreeGitDir, or
// ModuleGitDir a level up), where git's submodule update puts it:
// <parentGitDir>/modules/<name>, each folder below parentGitDir a
// folder, not a link. name must pass CheckModuleName.
func ModuleGitDir(parentGitDir, name string) (string, error) {
	if err := CheckModuleName(name); err != nil {
		return "", err
	}
	dir := parentGitDir
	for _, c := range append([]string{"modules"}, strings.Split(filepath.FromSlash(name), string(filepath.Separator))...) {
		dir = filepath.Join(dir, c)
		if st, err := os.Lstat(dir); err != nil {
			return "", err
		} else if !st.IsDir() {
			return "", fmt.Errorf("%s is not a folder (a link?)", dir)
		}
	}
	return dir, nil
}

// WorktreeGitDir is the admin dir of the linked worktree at dir of the
// repository whose common dir is commonDir, as git's own files prove it,
// not the worktree's: its .git file (which the worktree's user can
// rewrite) must name <commonDir>/worktrees/<id>, whose commondir leads
// back to commonDir and whose gitdir file points back at dir's .git.
func WorktreeGitDir(dir, commonDir string) (string, error) {
	_, admin, err := AdminDir(dir)
	if err != nil {
		return "", err
	}
	notOurs := fmt.Errorf("%s is not a linked worktree of %s, as git's files say", dir, commonDir)
	if filepath.Dir(admin) != filepath.Join(commonDir, "worktrees") || filepath.Clean(CommonDirOf(admin)) != filepath.Clean(commonDir) {
		return "", notOurs
	}
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil || Resolve(admin, strings.TrimRight(string(back), "\r\n")) != filepath.Join(dir, ".git") {
		return "", notOurs
	}
	return admin, nil
}

// StoreOrigin is the URL of the origin remote of the module repository
// whose git dir is gitDir ("" when it has none): where the main worktree
// cloned it from, its URL resolved as git resolved it then.
func (s Submodules) StoreOrigin(ctx context.Context, gitDir string) (string, error) {
	out, err := s.git.Exec(ctx, Cmd{Dir: gitDir, Env: ReadOnly, Args: []string{"config", "--file=" + filepath.Join(gitDir, "config"), "--get", "remote.origin.url"}})
	if ExitCode(err) == 1 { // unset
		return "", nil
	}
	return strings.TrimSuffix(string(out), "\n"), err
}

// LocalCommits are the commits reachable from HEAD or a branch of the
// repository at dir and from none of its remote-tracking refs: those made
// there (or fetched by hand into no remote).
func (s Submodules) LocalCommits(ctx context.Context, dir string) ([]string, error) {
	return s.git.Lines(ctx, dir, "rev-list", "HEAD", "--branches", "--not", "--remotes")
}

// Missing are those of oids the repository whose git dir is gitDir lacks.
func (s Submodules) Missing(ctx context.Context, gitDir string, oids []string) ([]string, error) {
	if len(oids) == 0 {
		return nil, nil
	}
	out, err := s.git.Exec(ctx, Cmd{Dir: gitDir, Env: ReadOnly, Args: []string{"--git-dir=" + gitDir, "cat-file", "--batch-check=%(objectname)"},
		Stdin: strings.NewReader(strings.Join(oids, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if oid, ok := strings.CutSuffix(line, " missing"); ok {
			missing = append(missing, oid)
		}
	}
	return missing, nil
}
