package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// The lines around git-wt's block in wt.envFile: the rest of the file
// (copied by wt.copy, say) is the user's and is kept.
const (
	envBegin = "# git-wt begin: the task's environment (git wt env); git-wt rewrites this block"
	envEnd   = "# git-wt end"
)

// ReadyEnvironment gives the task the ports of wt.port it lacks and
// writes its environment to wt.envFile (SPEC §10), when new finds the
// task exists (a name added to wt.port since gets its port then); a setup
// does the same in two steps around its copy (Apply).
func (m *Handler) ReadyEnvironment(ctx context.Context, e *record.Entry) error {
	if err := m.Ports().Ensure(ctx, e); err != nil {
		return err
	}
	return m.writeEnvFile(ctx, e.Record)
}

// writeEnvFile writes the task's environment as a dotenv block in
// wt.envFile inside its worktree, and keeps that path out of every
// worktree's status (info/exclude). A file git tracks is left alone, with
// a warning: writing it would make the worktree dirty.
func (m *Handler) writeEnvFile(ctx context.Context, rec *record.Record) error {
	rel := m.Settings.EnvFile
	if rel == "" {
		return nil
	}
	if tracked, _ := m.Git.Index().Tracked(ctx, rec.Path, rel); tracked {
		m.Warn("wt.envFile %s is tracked in task %q: not written (it would make the worktree dirty)", rel, rec.Task)
		return nil
	}
	if err := m.Place.ExcludeEnvFile(ctx); err != nil {
		return err
	}
	block := append(append([]string{envBegin}, strings.Split(strings.TrimSuffix(task.Dotenv(m.OwnEnv(rec)), "\n"), "\n")...), envEnd)
	if err := writeBlock(ctx, rec.Path, rel, block); err != nil {
		return fmt.Errorf("cannot write wt.envFile %s in %s: %w", rel, rec.Path, err)
	}
	return nil
}

// writeBlock writes block into the regular file rel under the folder
// dir, in place of an earlier block of git-wt's, making the folders on the
// way; no component may be a symlink (the worktree's files are the
// agent's, and a link could point anywhere), and every step goes through
// an os.Root of dir, so that a folder the agent swaps for a link meanwhile
// leads nowhere outside. The new content goes to a temporary file beside
// it, renamed over it: a kill midway leaves the file as it was (and the
// temporary file, kept out of git status by info/exclude, which the next
// write removes).
func writeBlock(ctx context.Context, dir, rel string, block []string) error {
	root, err := fsutil.OpenRootDir(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	rel = filepath.Clean(filepath.FromSlash(rel))
	if err := fsutil.MkdirNoLinks(root, filepath.Dir(rel)); err != nil {
		return err
	}
	task.Checkpoint(ctx, "envfile:folders")
	old, mode, err := readNoFollow(root, rel)
	if err != nil {
		return err
	}
	tmp := rel + place.EnvFileTempSuffix
	if st, err := root.Lstat(tmp); err == nil && st.Mode().IsRegular() {
		root.Remove(tmp) // a write killed before its rename
	}
	// O_EXCL: never through a symlink, never into a file someone else
	// opened meanwhile.
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.WriteString(replaceBlock(old, block))
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed the old file's mode
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		task.Checkpoint(ctx, "envfile:written")
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// readNoFollow reads the regular file rel under root ("" when there is
// none) and its permissions (0644 for a new file).
func readNoFollow(root *os.Root, rel string) (string, fs.FileMode, error) {
	st, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0o644, nil
	}
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file", filepath.Join(root.Name(), rel))
	}
	data, err := root.ReadFile(rel)
	return string(data), st.Mode().Perm(), err
}

// replaceBlock puts block (git-wt's lines: the begin line, NAME=value
// lines, the end line) where git-wt's block was in content, or at its
// end, with the file's line ends (CRLF when its begin line, or else its
// first line, ends so); every other line is kept as it is. A begin line
// whose end line is gone (edited away) takes with it only the lines just
// below it that git-wt writes now, each name once: a line of the user's
// after them is never lost, though an old line of git-wt's of a name it
// no longer writes stays too.
func replaceBlock(content string, block []string) string {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	eol := "\n"
	if len(lines) > 0 && strings.HasSuffix(lines[0], "\r\n") {
		eol = "\r\n"
	}
	begin := slices.IndexFunc(lines, func(l string) bool { return bare(l) == envBegin })
	if begin < 0 {
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += eol
		}
		return content + strings.Join(block, eol) + eol
	}
	if strings.HasSuffix(lines[begin], "\r\n") {
		eol = "\r\n"
	} else {
		eol = "\n"
	}
	stop := begin + 1
	if end := slices.IndexFunc(lines[begin+1:], func(l string) bool { return bare(l) == envEnd }); end >= 0 {
		stop += end + 1
	} else {
		stop += ownLines(lines[begin+1:], block)
	}
	return strings.Join(lines[:begin], "") + strings.Join(block, eol) + eol + strings.Join(lines[stop:], "")
}

// ownLines counts the lines at the top of lines that git-wt's block
// writes: NAME=... with a NAME of the block's, each once.
func ownLines(lines, block []string) int {
	names := map[string]bool{}
	for _, l := range block {
		if name, _, ok := strings.Cut(l, "="); ok {
			names[name] = true
		}
	}
	n := 0
	for _, l := range lines {
		name, _, ok := strings.Cut(bare(l), "=")
		if !ok || !names[name] {
			break
		}
		delete(names, name)
		n++
	}
	return n
}

// bare is a line without its line end.
func bare(line string) string {
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
}
