package git

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The config files an agent can write (SPEC §19). Pinning GIT_DIR and
// GIT_COMMON_DIR decides which git dir git uses, not what config it reads
// from it, and everything in the git dir but .git/config and .git/hooks is
// the agent's to write:
//
//   - with extensions.worktreeConfig on (a sparse task turns it on), every
//     git reads the config.worktree of the worktree it runs in: the main
//     git dir's for the main worktree, the admin entry's for a task's;
//   - git status looks into submodules, running git in each with the
//     config of its git dir, modules/<name>/config in the git dir of the
//     worktree around it (an agent's own admin entry, for a task);
//   - a commondir file in the main git dir sends every git to another
//     repository's config (git writes one only in worktrees/<id>).
//
// CheckGitDirConfig reads those files before git-wt runs git (files only:
// a stat each where there are none) and refuses what could run a command,
// grant trust or reach beyond the worktree.

// worktreeConfigKeys are the keys a config.worktree may hold: the sparse
// settings `git sparse-checkout` writes there.
var worktreeConfigKeys = map[string]bool{
	"core.sparsecheckout": true, "core.sparsecheckoutcone": true, "index.sparse": true,
}

// submoduleDenied says whether a key of a submodule's config would make git
// status (or a git it starts) run a program, read another config, or reach
// elsewhere.
func submoduleDenied(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest[strings.LastIndex(rest, ".")+1:]
	switch section {
	case "filter", "diff", "include", "includeif", "credential", "gpg", "uploadpack",
		"receive", "protocol", "url":
		return true
	case "core":
		switch name {
		case "fsmonitor", "hookspath", "sshcommand", "askpass", "pager", "editor", "gitproxy":
			return true
		}
	case "merge":
		return name == "driver"
	}
	return name == "editor" || name == "program" || name == "command" || name == "textconv"
}

// UnsafeGitDirError is a file in the git dir that git-wt will not let git
// read: Path, and the Key it holds that git-wt refuses (empty when the
// file itself is the problem).
type UnsafeGitDirError struct{ Path, Key, Why string }

func (e *UnsafeGitDirError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s; nothing was run", e.Path, e.Why)
	}
	return fmt.Sprintf("%s holds %s: %s; nothing was run", e.Path, e.Key, e.Why)
}

// CheckGitDirConfig refuses a repository whose git dirs hold a config that
// git would read on git-wt's behalf and that git-wt does not trust (see
// above). gitDir is the git dir of the worktree git-wt started in.
func CheckGitDirConfig(gitDir, commonDir string) error {
	if err := checkCommonDirFile(gitDir, commonDir); err != nil {
		return err
	}
	dirs := []string{commonDir}
	if entries, err := os.ReadDir(filepath.Join(commonDir, "worktrees")); err == nil {
		for _, e := range entries {
			dirs = append(dirs, filepath.Join(commonDir, "worktrees", e.Name()))
		}
	}
	for _, dir := range dirs {
		if err := checkConfigFile(filepath.Join(dir, "config.worktree"), WorktreeConfigAllowed,
			"a worktree's config may hold only git's sparse settings (extensions.worktreeConfig makes every git read it); move the setting to .git/config"); err != nil {
			return err
		}
		if err := checkModules(filepath.Join(dir, "modules")); err != nil {
			return err
		}
	}
	return nil
}

// CheckReadOnlyRepo refuses to read another repository than the one
// git-wt runs in (list --machine, SPEC §20) where git, reading it, could
// run a program that repository's config names: its git dirs as
// CheckGitDirConfig checks them, and its own config, which there is not
// the user's word but whoever made the repository's (a clone an agent
// made under its runner's folder). What Runner.ReadOnly turns off
// (readOnlyConfig) may stay; a filter or merge driver (git status runs a
// clean filter, merge-tree a merge driver), a diff program, and an
// include (a file git reads that this check does not) may not.
func CheckReadOnlyRepo(commonDir string) error {
	if err := CheckGitDirConfig(commonDir, commonDir); err != nil {
		return err
	}
	return checkConfigFile(filepath.Join(commonDir, "config"), readOnlyAllowed,
		"git-wt reads another repository only where its config runs no program; that repository's own git reads it as before")
}

// readOnlyAllowed says whether another repository's config may hold key
// for git-wt to read that repository (CheckReadOnlyRepo).
func readOnlyAllowed(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest[strings.LastIndex(rest, ".")+1:]
	switch section {
	case "filter", "include", "includeif":
		return false
	case "merge":
		return name != "driver"
	case "diff":
		return name != "external" && name != "command" && name != "textconv"
	}
	return true
}

// WorktreeConfigAllowed says whether a config.worktree may set key (any
// case).
func WorktreeConfigAllowed(key string) bool { return worktreeConfigKeys[strings.ToLower(key)] }

// checkCommonDirFile refuses a commondir file where git never writes one:
// in the common dir, or in a git dir that is no worktrees/<id> entry.
func checkCommonDirFile(gitDir, commonDir string) error {
	for _, dir := range []string{commonDir, gitDir} {
		if dir == gitDir && filepath.Base(filepath.Dir(gitDir)) == "worktrees" {
			continue
		}
		path := filepath.Join(dir, "commondir")
		if _, err := os.Lstat(path); err == nil {
			return &UnsafeGitDirError{Path: path, Why: "git writes a commondir file only in a linked worktree's entry, and this one sends every git to another repository; remove it"}
		}
	}
	return nil
}

// checkModules checks the config of every submodule git dir under dir:
// modules/<name>/config (a name may hold '/'), and the modules of those.
// It goes no deeper than the folders of names, never into a git dir's
// objects.
func checkModules(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			return &UnsafeGitDirError{Path: path, Why: "a submodule's git dir is a link, which git follows and git-wt does not; remove it"}
		}
		if !e.IsDir() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(path, "HEAD")); err != nil {
			if err := checkModules(path); err != nil { // a folder of a name with '/'
				return err
			}
			continue
		}
		if err := checkSubmoduleGitDir(path); err != nil {
			return err
		}
	}
	return nil
}

// checkSubmoduleGitDir checks what git reads in a submodule's git dir:
// its config and its config.worktree (the submodule's own config can turn
// that on), no commondir (which would send its git elsewhere), and the
// submodules inside.
func checkSubmoduleGitDir(gitDir string) error {
	if err := checkCommonDirFile(gitDir, gitDir); err != nil {
		return err
	}
	for _, name := range []string{"config", "config.worktree"} {
		if err := checkConfigFile(filepath.Join(gitDir, name), submoduleAllowed,
			"git status reads a submodule's config, and this setting runs programs or reaches beyond the worktree; remove it"); err != nil {
			return err
		}
	}
	return checkModules(filepath.Join(gitDir, "modules"))
}

func submoduleAllowed(key string) bool { return !submoduleDenied(key) }

// checkConfigFile refuses the config file at path (no file is fine) when
// it holds a key allowed refuses, or anything configFileKeys cannot read.
func checkConfigFile(path string, allowed func(key string) bool, why string) error {
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err == nil && !st.Mode().IsRegular() {
		// A fifo would hold git-wt (and git) forever.
		return &UnsafeGitDirError{Path: path, Why: "it is no file; remove it"}
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return &UnsafeGitDirError{Path: path, Why: fmt.Sprintf("cannot read it (%v)", err)}
	}
	keys, err := configFileKeys(data)
	if err != nil {
		return &UnsafeGitDirError{Path: path, Why: err.Error() + ", so git-wt cannot tell what git would read in it"}
	}
	for _, key := range keys {
		if !allowed(key) {
			return &UnsafeGitDirError{Path: path, Key: key, Why: why}
		}
	}
	return nil
}

// configFileKeys lists the keys of a git config file, lower case with their
// section and subsection ("remote.origin.url" as "remote.origin.url",
// "core.sparseCheckout" as "core.sparsecheckout"). It reads the layout git
// writes (git-config(1), "CONFIGURATION FILE"), and anything else (a key
// on its header's line, a line it cannot place) is an error: the caller
// refuses what it cannot read rather than guess how git would.
func configFileKeys(data []byte) ([]string, error) {
	var keys []string
	section := ""
	continued := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		wasContinued := continued
		continued = strings.HasSuffix(line, `\`) && (len(line)-len(strings.TrimRight(line, `\`)))%2 == 1
		if wasContinued || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			s, ok := configSection(line)
			if !ok {
				return nil, fmt.Errorf("line %d is a section header git-wt cannot read", n)
			}
			section, continued = s, false
			continue
		}
		if section == "" {
			return nil, fmt.Errorf("line %d holds a setting outside any section", n)
		}
		name := line
		if i := strings.IndexAny(line, "= \t"); i >= 0 {
			name = line[:i]
		}
		if !configName(name) {
			return nil, fmt.Errorf("line %d holds a setting git-wt cannot read", n)
		}
		keys = append(keys, section+"."+strings.ToLower(name))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return keys, nil
}

// configSection reads a section header alone on its line: [core],
// [remote "origin"] (subsection kept as written), or the old [core.sub].
func configSection(line string) (string, bool) {
	body, ok := strings.CutSuffix(line, "]")
	if !ok {
		return "", false
	}
	body = body[1:]
	name, sub, quoted := strings.Cut(body, " ")
	if quoted {
		sub = strings.TrimSpace(sub)
		if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' || strings.ContainsAny(sub[1:len(sub)-1], "\"\\") {
			return "", false
		}
		if !configName(name) {
			return "", false
		}
		return strings.ToLower(name) + "." + sub[1:len(sub)-1], true
	}
	for _, part := range strings.Split(name, ".") {
		if !configName(part) {
			return "", false
		}
	}
	return strings.ToLower(name), true
}

// configName is git's rule for a section or key name: letters, digits and
// '-', starting with a letter (for keys; '.' is handled by the caller).
func configName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}
