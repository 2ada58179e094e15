package setup

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/text"
)

// PreparePoolEntry sets up a warm pool entry at dir when it is made (SPEC
// §11, §14): the wt.copy and .worktreeinclude files, then the trusted
// wt.poolInit commands, with WT_MAIN, WT_BASE (base) and WT_PATH set and
// no task or ports: the setup that does not depend on the task. Output
// goes to log. The task's own wt.init runs when the entry is claimed.
// started learns each command's process group, as a task's init does, so
// that the entry can name it, and returns what to call once the command
// has ended; ran says whether a wt.poolInit command ran.
func (m *Handler) PreparePoolEntry(ctx context.Context, dir, base string, log io.Writer, started func(pgid int, start string) (ended func())) (ran bool, err error) {
	if m.hasCopyPatterns() {
		if err := m.copyFiles(ctx, dir, log); err != nil {
			return false, err
		}
	}
	run, untrusted := m.Settings.PoolInitCommands()
	if len(untrusted) > 0 {
		fmt.Fprintf(log, "git-wt: skipped %d wt.poolInit %s from %s, which you have not trusted (git wt trust)\n",
			len(untrusted), text.Plural(len(untrusted), "command", "commands"), filepath.Join(m.Repo.MainDir, ".gitwt"))
	}
	env := []string{"WT_MAIN=" + m.Repo.MainDir, "WT_BASE=" + base, "WT_PATH=" + dir}
	return len(run) > 0, m.runCommands(ctx, dir, env, run, log, log, started, func(int64) {})
}
