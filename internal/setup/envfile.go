package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
	block := envBegin + "\n" + task.Dotenv(m.OwnEnv(rec)) + envEnd + "\n"
	if err := writeBlock(rec.Path, rel, block); err != nil {
		return fmt.Errorf("cannot write wt.envFile %s in %s: %w", rel, rec.Path, err)
	}
	return nil
}

// writeBlock writes block into the regular file rel under root, in place
// of an earlier block of git-wt's, making the folders on the way; no
// component may be a symlink (the worktree's files are the agent's, and a
// link could point anywhere).
func writeBlock(root, rel, block string) error {
	dir := root
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, c := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, c)
		st, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o777); err != nil {
				return err
			}
		case err != nil:
			return err
		case !st.IsDir():
			return fmt.Errorf("%s is not a folder", dir)
		}
	}
	path := filepath.Join(dir, parts[len(parts)-1])
	old, err := readNoFollow(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(replaceBlock(old, block))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readNoFollow reads the regular file at path ("" when there is none).
func readNoFollow(path string) (string, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

// replaceBlock puts block where git-wt's block was in content, or at its
// end.
func replaceBlock(content, block string) string {
	start := strings.Index(content, envBegin+"\n")
	if start < 0 {
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		return content + block
	}
	end := strings.Index(content[start:], envEnd+"\n")
	if end < 0 {
		return content[:start] + block
	}
	return content[:start] + block + content[start+end+len(envEnd)+1:]
}
