package git

import (
	"context"
	"fmt"
	"strings"
)

// ExecPath is git's exec path (`git --exec-path`): the folder of git's own
// programs, which on Windows says where Git for Windows is installed.
func (r *Runner) ExecPath(ctx context.Context, dir string) (string, error) {
	out, err := r.Run(ctx, dir, "--exec-path")
	return strings.TrimSpace(out), err
}

// Shell is the shell that setup commands (wt.init, wt.preRemove,
// wt.poolInit) run in with -c, found once per runner: sh on PATH on unix;
// on Windows, Git for Windows' sh.exe beside git (shell_windows.go), the
// shell git runs its own hooks with.
func (r *Runner) Shell(ctx context.Context, dir string) (string, error) {
	r.shellOnce.Do(func() { r.shell, r.shellErr = findShell(ctx, r, dir) })
	return r.shell, r.shellErr
}

// msysEnvironments are the folders of Git for Windows' root that hold a
// build of git (`<root>/<env>/libexec/git-core`), one per MSYS2
// environment it ships: x86-64, 32-bit x86, arm64.
var msysEnvironments = []string{"mingw64", "mingw32", "clangarm64", "clang64", "ucrt64"}

// ShellCandidates are where Git for Windows keeps its sh.exe, in the order
// to try, given git's exec path: its root's bin/sh.exe (the launcher that
// puts Git for Windows' tools on PATH first, as Git Bash has them), then
// usr/bin/sh.exe (the shell itself, which MinGit has alone). The root is
// the exec path less `<env>/libexec/git-core` (an MSYS2 environment:
// msysEnvironments), or less `libexec/git-core`. Nil when the exec path
// ends otherwise. Pure: `\` and git's `/` both separate, and the
// candidates use `/`, which Windows takes too.
func ShellCandidates(execPath string) []string {
	root, ok := cutFolders(strings.TrimRight(strings.ReplaceAll(execPath, `\`, "/"), "/"), "libexec", "git-core")
	if !ok {
		return nil
	}
	for _, env := range msysEnvironments {
		if r, ok := cutFolders(root, env); ok {
			root = r
			break
		}
	}
	return []string{root + "/bin/sh.exe", root + "/usr/bin/sh.exe"}
}

// cutFolders is path less its last folders, named as given (in any case,
// as Windows names them), and whether it ended so and kept a root.
func cutFolders(path string, folders ...string) (string, bool) {
	for i := len(folders) - 1; i >= 0; i-- {
		slash := strings.LastIndexByte(path, '/')
		if slash <= 0 || !strings.EqualFold(path[slash+1:], folders[i]) {
			return "", false
		}
		path = path[:slash]
	}
	return path, true
}

// shellBeside is the first of git's ShellCandidates that exists, or an
// error that names them all and the exec path they come from.
func shellBeside(execPath string, exists func(string) bool) (string, error) {
	candidates := ShellCandidates(execPath)
	for _, c := range candidates {
		if exists(c) {
			return c, nil
		}
	}
	if len(candidates) == 0 {
		return "", fmt.Errorf("no sh.exe to run the command with: git's exec path %s is not laid out as Git for Windows' (<root>/mingw64/libexec/git-core): install Git for Windows", execPath)
	}
	return "", fmt.Errorf("no sh.exe to run the command with: Git for Windows keeps one at %s, beside git's exec path %s, and neither exists: repair or reinstall Git for Windows", strings.Join(candidates, " or "), execPath)
}
