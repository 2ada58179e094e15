package place

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/lock"
)

// A base dir inside the main worktree would show there as untracked
// ("?? .acode/"), and a main worktree that is not clean refuses every
// merge. So new keeps one anchored literal line for it in the common
// dir's info/exclude (SPEC §3, §14): never a pattern, which would hide
// agents' new files in every worktree. The line follows a marker comment,
// so that it is written once, replaced when wt.baseDir moves, and taken
// out when the base dir leaves the main worktree.

// The comment lines above the lines git-wt keeps: the base dir's, and
// wt.envFile's (SPEC §10: the task's dotenv file never makes a worktree
// dirty).
const (
	excludeMark      = "# git-wt: the worktree base dir (wt.baseDir); git wt new keeps the line below"
	envExcludeMark   = "# git-wt: the task environment file (wt.envFile); git wt new keeps the line below"
	agentExcludeMark = "# git-wt: the agent runner's settings of this clone; git wt agent-setup --undo takes the line below out"
	envTempMark      = "# git-wt: the temporary file of a wt.envFile write; git wt new keeps the line below"
)

// symlinkMark is the comment above the line that keeps a wt.symlink
// link out of every worktree's status: a pattern such as node_modules/
// matches a directory, never the link that stands in its place.
func symlinkMark(rel string) string {
	return "# git-wt: the link of wt.symlink " + rel + "; git wt new keeps the line below"
}

// ExcludeSymlinks keeps one line for each link of wt.symlink (rels,
// relative to every worktree's root) in info/exclude, and takes out the
// lines of links no longer configured.
func (r *Rules) ExcludeSymlinks(ctx context.Context, rels []string) error {
	wanted := map[string]string{}
	for _, rel := range rels {
		if line, ok := anchoredLiteral(rel, false); ok {
			wanted[symlinkMark(rel)] = line
		}
	}
	_, lines := readExclude(r.excludeFile(), "")
	for _, l := range lines {
		if rel, ok := strings.CutPrefix(l, "# git-wt: the link of wt.symlink "); ok {
			rel, _, _ = strings.Cut(rel, "; git wt new keeps")
			if _, keep := wanted[symlinkMark(rel)]; !keep {
				wanted[symlinkMark(rel)] = ""
			}
		}
	}
	for mark, line := range wanted {
		if err := r.keepExcludeLine(ctx, mark, line); err != nil {
			return err
		}
	}
	return nil
}

// EnvFileTempSuffix names the temporary file beside wt.envFile that a
// write renames over it: a kill before the rename leaves it behind, and
// its own line in info/exclude keeps it out of the worktree's status
// until the next write removes it.
const EnvFileTempSuffix = ".git-wt-tmp"

// excludeBaseDir makes info/exclude hold the base dir dir's line when dir
// lies inside the main worktree, and no line of git-wt's otherwise. It
// reads the file (no git), and takes the repository lock only to change
// it.
func (r *Rules) excludeBaseDir(ctx context.Context, dir string) error {
	want := ""
	if rel, ok := r.inMainWorktree(dir); ok {
		if want, ok = anchoredLiteral(rel, true); !ok {
			r.Warn("cannot keep %s out of the main worktree's status: its name cannot be written in %s", dir, r.excludeFile())
			return nil
		}
	}
	return r.keepExcludeLine(ctx, excludeMark, want)
}

// ExcludeEnvFile makes info/exclude hold the line of wt.envFile's path
// (relative to every worktree's root), so that the file never shows in a
// worktree's status, and that of its temporary file; no such line of
// git-wt's when wt.envFile is unset (SPEC §14: what git-wt added goes
// when the setting goes).
func (r *Rules) ExcludeEnvFile(ctx context.Context) error {
	want, wantTemp := "", ""
	if rel := r.Settings.EnvFile; rel != "" {
		var ok bool
		if want, ok = anchoredLiteral(rel, false); !ok {
			return fmt.Errorf("wt.envFile %q cannot be written in %s", rel, r.excludeFile())
		}
		wantTemp, _ = anchoredLiteral(rel+EnvFileTempSuffix, false)
	}
	if err := r.keepExcludeLine(ctx, envExcludeMark, want); err != nil {
		return err
	}
	return r.keepExcludeLine(ctx, envTempMark, wantTemp)
}

// runnerExcludeMark is the comment above the line that keeps the
// runner's file rel out of git status: one for each runner's file
// (agentExcludeMark was the one of Claude Code's, before the others').
func runnerExcludeMark(rel string) string {
	return "# git-wt: the agent runner's settings of this clone, " + rel + "; git wt agent-setup --undo takes the line below out"
}

// ExcludeRunnerSettings keeps the runner's settings file of this clone
// (rel, relative to the main worktree) out of git status, or takes
// git-wt's line out again (on false): agent-setup writes the file, and
// must neither dirty the main worktree nor leave the line behind.
func (r *Rules) ExcludeRunnerSettings(ctx context.Context, rel string, on bool) error {
	line, ok := anchoredLiteral(rel, false)
	if !ok {
		return fmt.Errorf("%q cannot be written in %s", rel, r.excludeFile())
	}
	if !on {
		if legacy, _ := readExclude(r.excludeFile(), agentExcludeMark); legacy == line {
			if err := r.keepExcludeLine(ctx, agentExcludeMark, ""); err != nil {
				return err
			}
		}
		line = ""
	}
	return r.keepExcludeLine(ctx, runnerExcludeMark(rel), line)
}

// keepExcludeLine makes want the line below mark in info/exclude (none
// when want is ""). It reads the file (no git), and takes the repository
// lock only to change it.
func (r *Rules) keepExcludeLine(ctx context.Context, mark, want string) error {
	if have, _ := readExclude(r.excludeFile(), mark); have == want {
		return nil
	}
	l, err := r.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	return r.writeExclude(l, mark, want)
}

// excludeFile is the exclude file every worktree of the repository reads.
func (r *Rules) excludeFile() string {
	return filepath.Join(r.Repo.CommonDir, "info", "exclude")
}

// readExclude returns the line git-wt keeps below mark in the exclude
// file ("" when none) and the file's lines.
func readExclude(path, mark string) (string, []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		if l == mark && i+1 < len(lines) {
			return lines[i+1], lines
		}
	}
	return "", lines
}

// writeExclude replaces git-wt's line below mark (and the mark) in the
// exclude file by want, or removes them when want is "", under the lock
// the caller holds (held); the file is replaced whole, by a rename.
func (r *Rules) writeExclude(held *lock.Lock, mark, want string) error {
	path := r.excludeFile()
	have, lines := readExclude(path, mark)
	if have == want {
		return nil
	}
	var kept []string
	for i := 0; i < len(lines); i++ {
		if lines[i] == mark {
			i++ // and the line below it
			continue
		}
		kept = append(kept, lines[i])
	}
	if len(kept) == 1 && kept[0] == "" {
		kept = nil
	}
	if want != "" {
		kept = append(kept, mark, want)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	content := ""
	if len(kept) > 0 {
		content = strings.Join(kept, "\n") + "\n"
	}
	tmp := path + ".git-wt.tmp"
	if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// anchoredLiteral is the gitignore line that matches exactly rel
// (relative to the worktree root), a folder when dir, and nothing else:
// "/" in front anchors it, "/" behind makes it a folder, and every
// character that a pattern would read specially is escaped. A name with a
// line break cannot be written.
func anchoredLiteral(rel string, dir bool) (string, bool) {
	rel = filepath.ToSlash(rel)
	if strings.ContainsAny(rel, "\n\r") {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('/')
	for _, r := range rel {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if dir {
		b.WriteByte('/')
	}
	return b.String(), true
}
