//go:build !windows

package cli

import "io"

// showsColor is true: every terminal here reads colour sequences (a
// "dumb" one is told by TERM, in wantColor).
func showsColor(io.Writer) bool { return true }
