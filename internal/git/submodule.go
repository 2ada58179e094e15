package git

import (
	"context"
	"io"
	"strings"
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

// Init initialises the submodules at paths in the worktree (or submodule
// worktree) dir: their URLs go into that repository's config. Never run
// at a task's top level: a linked worktree shares the main worktree's
// config, where the main worktree's choice is already written.
func (s Submodules) Init(ctx context.Context, dir string, paths []string) error {
	_, err := s.git.RunIn(ctx, dir, append([]string{"submodule", "--quiet", "init", "--"}, paths...)...)
	return err
}

// ModuleSource is where one submodule's objects come from: the module
// repository at From (the main worktree's), in place of URL.
type ModuleSource struct {
	Name, Path, URL, From string
}

// Update checks out the submodules of srcs in dir at the commits dir's
// tree records, cloning each from its From with the file transport
// (objects hard-linked), without a network. A URL is mapped to From with
// url.<From>.insteadOf, which leaves the module's own URL as it was; git
// applies no such mapping to a plain path (a clone dies when the path is
// gone), so a path URL is replaced for this command only
// (submodule.<name>.url) and set back afterwards with SetOrigin.
// git's output goes to log.
func (s Submodules) Update(ctx context.Context, dir string, srcs []ModuleSource, log io.Writer) error {
	_, err := s.git.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Args: updateArgs(srcs), Stdout: log, Stderr: log})
	return err
}

func updateArgs(srcs []ModuleSource) []string {
	args := []string{"-c", "protocol.file.allow=always"}
	var paths []string
	for _, m := range srcs {
		if m.From != "" {
			if IsPathURL(m.URL) {
				args = append(args, "-c", "submodule."+m.Name+".url="+m.From)
			} else {
				args = append(args, "-c", "url."+m.From+".insteadOf="+m.URL)
			}
		}
		paths = append(paths, m.Path)
	}
	return append(append(args, "submodule", "update", "--"), paths...)
}

// IsPathURL says whether a submodule URL is a local path, which git's
// url.*.insteadOf does not rewrite: one with no colon before its first
// slash ("/srv/lib", "../lib"; not "https://..." or "host:lib").
func IsPathURL(url string) bool {
	colon := strings.IndexByte(url, ':')
	return colon < 0 || strings.IndexByte(url, '/') >= 0 && strings.IndexByte(url, '/') < colon
}

// SetOrigin sets the URL of the origin remote of the repository at dir.
func (s Submodules) SetOrigin(ctx context.Context, dir, url string) error {
	_, err := s.git.RunIn(ctx, dir, "config", "remote.origin.url", url)
	return err
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
