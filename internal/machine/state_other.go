//go:build !windows

package machine

import (
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
