//go:build !windows

package madeby

// homeVar names the home folder: $HOME, as os.UserHomeDir reads it.
const homeVar = "HOME"
