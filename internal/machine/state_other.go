//go:build !windows

package machine

import (
	"os"
	"path/filepath"
	"syscall"
)

// registryOpen are the flags the registry is opened with besides the
// access mode: a fifo put there opens at once (and is then refused, as no
// regular file) instead of holding every git-wt command until a writer
// comes; a link put in its place is not followed, so no append lands in
// the file it points at (a shell's startup file).
const registryOpen = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// stateDir is where XDG puts state when XDG_STATE_HOME is unset:
// ~/.local/state. macOS too: git itself keeps its XDG files there
// (~/.config/git), and a user who sets XDG_STATE_HOME gets it honoured
// everywhere.
func stateDir(getenv func(string) string) (string, bool) {
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", false
	}
	return filepath.Join(home, ".local", "state"), true
}

// appendLine writes line at the end of the registry f, opened with
// O_APPEND: one write below PIPE_BUF, which the kernel puts at the end
// whole, whatever other processes append at the same time.
func appendLine(f *os.File, line []byte) { f.Write(line) }
