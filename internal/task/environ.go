package task

import (
	"os"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// TaskEnv is the environment of a command run for a task (SPEC §6: its
// init, `git wt exec`): this process's own, less the variables that would
// point git at another repository (a hook inherits GIT_DIR and
// GIT_INDEX_FILE from git), with WT_TASK, WT_SLUG, WT_BRANCH, WT_PATH,
// WT_MAIN and WT_BASE, and extra (KEY=VALUE), replacing any of the same
// name.
func (m *Manager) TaskEnv(rec *record.Record, extra ...string) []string {
	return withEnv(git.ScrubbedEnv(os.Environ()), append([]string{
		"WT_TASK=" + rec.Task,
		"WT_SLUG=" + rec.Slug,
		"WT_BRANCH=" + rec.Branch,
		"WT_PATH=" + rec.Path,
		"WT_MAIN=" + m.Repo.MainDir,
		"WT_BASE=" + rec.Base,
	}, extra...)...)
}

// withEnv returns env with the variables of set (KEY=VALUE) replacing any
// of the same name: a C program's getenv reads the first of duplicates.
func withEnv(env []string, set ...string) []string {
	names := make(map[string]bool, len(set))
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// RequireWorktree fails (exit 1) when the task's worktree folder is gone.
func RequireWorktree(rec *record.Record) error {
	if st, err := os.Stat(rec.Path); err == nil && st.IsDir() {
		return nil
	}
	return exitcode.Failedf("the worktree %s of task %q is missing: run git wt new %s to make it again", rec.Path, rec.Task, text.ShellQuote(rec.Task))
}
