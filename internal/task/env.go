package task

import (
	"os"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// TaskEnv is the environment of a command run for a task (SPEC §6): this
// process's own, less the variables that would point git at another
// repository (a hook inherits GIT_DIR and GIT_INDEX_FILE from git), plus
// WT_TASK, WT_SLUG, WT_BRANCH, WT_PATH, WT_MAIN and WT_BASE.
func (m *Manager) TaskEnv(rec *record.Record) []string {
	return append(git.ScrubbedEnv(os.Environ()),
		"WT_TASK="+rec.Task,
		"WT_SLUG="+rec.Slug,
		"WT_BRANCH="+rec.Branch,
		"WT_PATH="+rec.Path,
		"WT_MAIN="+m.Repo.MainDir,
		"WT_BASE="+rec.Base,
	)
}
