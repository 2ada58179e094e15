package git

import (
	"context"
	"os"
	"strings"
)

// The operations git can stop in the middle of, as InProgress names them.
const (
	OpMerge  = "a merge"
	OpRebase = "a rebase"
)

// InProgress names the operation that git stopped in the middle of in the
// worktree at dir, or "" when there is none.
func (r *Runner) InProgress(ctx context.Context, dir string) string {
	markers := []struct{ path, op string }{
		{"MERGE_HEAD", OpMerge}, {"rebase-merge", OpRebase}, {"rebase-apply", OpRebase},
		{"CHERRY_PICK_HEAD", "a cherry-pick"}, {"REVERT_HEAD", "a revert"},
	}
	args := []string{"rev-parse", "--path-format=absolute"}
	for _, mk := range markers {
		args = append(args, "--git-path", mk.path)
	}
	out, err := r.RunIn(ctx, dir, args...)
	paths := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(paths) != len(markers) {
		return ""
	}
	for i, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return markers[i].op
		}
	}
	return ""
}
