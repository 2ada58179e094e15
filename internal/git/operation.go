package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// The operations git can stop in the middle of, as InProgress names them.
const (
	OpMerge  = "a merge"
	OpRebase = "a rebase"
)

// inProgressMarkers are the files in a worktree's git dir that say git
// stopped in the middle of an operation, and the operation.
var inProgressMarkers = []struct{ path, op string }{
	{"MERGE_HEAD", OpMerge}, {"rebase-merge", OpRebase}, {"rebase-apply", OpRebase},
	{"CHERRY_PICK_HEAD", "a cherry-pick"}, {"REVERT_HEAD", "a revert"},
}

// InProgress names the operation that git stopped in the middle of in the
// worktree at dir, or "" when there is none.
func (r *Runner) InProgress(ctx context.Context, dir string) string {
	args := []string{"rev-parse", "--path-format=absolute"}
	for _, mk := range inProgressMarkers {
		args = append(args, "--git-path", mk.path)
	}
	out, err := r.RunIn(ctx, dir, args...)
	paths := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(paths) != len(inProgressMarkers) {
		return ""
	}
	for i, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return inProgressMarkers[i].op
		}
	}
	return ""
}

// InProgressIn is InProgress of the linked worktree whose git dir is
// gitDir, read from the files of git's documented layout with no git
// process: for doctor, which looks at every task.
func InProgressIn(gitDir string) string {
	for _, mk := range inProgressMarkers {
		if _, err := os.Lstat(filepath.Join(gitDir, mk.path)); err == nil {
			return mk.op
		}
	}
	return ""
}
