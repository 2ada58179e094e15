package git

import (
	"context"
	"os"
)

// findShell is Git for Windows' sh.exe, found beside git as git finds the
// shell for its hooks: from git's exec path (ShellCandidates).
func findShell(ctx context.Context, r *Runner, dir string) (string, error) {
	execPath, err := r.ExecPath(ctx, dir)
	if err != nil {
		return "", err
	}
	return shellBeside(execPath, func(path string) bool {
		st, err := os.Stat(path)
		return err == nil && st.Mode().IsRegular()
	})
}
