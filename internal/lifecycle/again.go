package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// checkAskedAgain refuses `new` for an existing task with flags that
// contradict it (SPEC §2): another --branch, --base or --path changes
// nothing and is a usage error saying what differs. Bases are compared
// resolved: "main" and "refs/heads/main" are one base.
func (m *Handler) checkAskedAgain(ctx context.Context, rec *record.Record, o CreateOptions) error {
	var diffs []string
	if o.Branch != "" && o.Branch != rec.Branch {
		diffs = append(diffs, fmt.Sprintf("its branch is %s, not %s", rec.Branch, o.Branch))
	}
	if o.Path != "" && !m.samePath(rec.Path, o.Path) {
		diffs = append(diffs, fmt.Sprintf("its path is %s, not %s", rec.Path, o.Path))
	}
	if o.Base != "" && !o.ForRunner { // a runner's base is for a new task only
		b, err := m.ResolveBase(ctx, o.Base)
		if err != nil {
			return err
		}
		if !sameBase(rec, b) {
			diffs = append(diffs, fmt.Sprintf("its base is %s, not %s", rec.Base, o.Base))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return exitcode.Usagef("task %q exists already and %s: nothing was changed (run git wt new %s without those flags to resume it, or use another task id)",
		rec.Task, strings.Join(diffs, ", "), text.ShellQuote(rec.Task))
}

// samePath reports whether --path want (relative to the base dir, as new
// reads it) names the worktree at path.
func (m *Handler) samePath(path, want string) bool {
	if !filepath.IsAbs(want) {
		want = filepath.Join(m.Settings.BaseDir, want)
	}
	if fsutil.SamePath(want, path) {
		return true
	}
	real, err := fsutil.ResolveExisting(want)
	return err == nil && fsutil.SamePath(real, path)
}

// sameBase reports whether the resolved --base b is the task's base: the
// same ref when both are refs, else the same commit as the one it
// started from.
func sameBase(rec *record.Record, b task.Base) bool {
	if b.Ref != "" && strings.HasPrefix(rec.Base, "refs/") {
		return b.Ref == rec.Base
	}
	return b.SHA == rec.BaseSHA || b.SHA == rec.Base
}
