//go:build !windows

package machine

import "path/filepath"

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
