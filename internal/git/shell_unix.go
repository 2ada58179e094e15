//go:build unix

package git

import "context"

// findShell is sh, looked up on PATH when it runs, as everywhere on unix.
func findShell(context.Context, *Runner, string) (string, error) { return "sh", nil }
