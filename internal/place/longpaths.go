package place

import (
	"context"
	"fmt"
	"unicode/utf8"
)

// LongPathLimit is how long the path of a file in a new worktree may get
// before new warns, where paths are limited (SPEC §21, Windows): MAX_PATH
// is 260, programs without long-path support fail past it (git-wt gives
// git core.longpaths), and 200 leaves room for what a build writes.
const LongPathLimit = 200

// WarnLongPaths warns, where paths are limited (Windows), when the
// checkout of commit in worktree would hold a path longer than
// LongPathLimit. One git process, only there.
func (r *Rules) WarnLongPaths(ctx context.Context, worktree, commit string) {
	if !pathsLimited {
		return
	}
	longest, err := r.Git.History().LongestPath(ctx, r.Repo.MainDir, commit)
	if msg := longPathWarning(worktree, longest); err == nil && msg != "" {
		r.Warn("%s", msg)
	}
}

// longPathWarning is the warning for a worktree whose longest tracked
// path is longest characters long, or "" when its paths stay within
// LongPathLimit.
func longPathWarning(worktree string, longest int) string {
	n := utf8.RuneCountInString(worktree) + 1 + longest
	if longest == 0 || n <= LongPathLimit {
		return ""
	}
	return fmt.Sprintf("paths in %s reach %d characters, over %d: programs without long-path support may fail there (a shorter wt.baseDir helps)", worktree, n, LongPathLimit)
}
