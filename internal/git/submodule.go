package git

import (
	"context"
	"errors"
	"io"
	"os"
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

// Init initialises the submodules at paths in the submodule worktree dir
// (Cmd.InSubmodule): their URLs go into that repository's config. Never
// run at a task's top level: a linked worktree shares the main worktree's
// config, where the main worktree's choice is already written.
func (s Submodules) Init(ctx context.Context, dir string, paths []string) error {
	_, err := s.git.Exec(ctx, Cmd{Dir: dir, InSubmodule: true, Args: append([]string{"submodule", "--quiet", "init", "--"}, paths...)})
	return err
}

// ModuleSource is one submodule to check out: its name, its path, its
// URL and, when the main worktree has one, the main's module repository
// From, which the objects then come from.
type ModuleSource struct {
	Name, Path, URL, From string
}

// Update checks out the submodules of srcs in dir (a task worktree when
// top, else a submodule's folder in one) at the commits dir's
// tree records, git's output going to log. Those with a From are cloned
// from it with the file transport (objects hard-linked, no network):
// their URL is From for this command only (SetOrigin sets the clone's
// origin back to URL). The others are cloned from their URL, in a command
// of their own, with the file transport as the user's config has it:
// git-wt opens it to the main worktree's module repositories only, never
// to a path a commit's .gitmodules names (CVE-2022-39253). Every one is
// made active for the command, so that none is initialised in a config
// the main worktree shares. A name goes into git's config keys whole, by
// Cmd.Config: the callers check it first (CheckModuleName).
func (s Submodules) Update(ctx context.Context, dir string, top bool, srcs []ModuleSource, log io.Writer) error {
	for _, c := range updateCmds(dir, top, srcs) {
		c.Stdout, c.Stderr = log, log
		if _, err := s.git.Exec(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func updateCmds(dir string, top bool, srcs []ModuleSource) []Cmd {
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
			cmds = append(cmds, Cmd{Dir: dir, InWorktree: top, InSubmodule: !top, Config: u.config,
				Args: append([]string{"submodule", "update", "--"}, u.paths...)})
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

// SetOrigin sets the URL of the origin remote of the submodule repository
// at dir (Cmd.InSubmodule).
func (s Submodules) SetOrigin(ctx context.Context, dir, url string) error {
	_, err := s.git.Exec(ctx, Cmd{Dir: dir, InSubmodule: true, Args: []string{"config", "--", "remote.origin.url", url}})
	return err
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
