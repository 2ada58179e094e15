//go:build !linux && !darwin && !freebsd && !windows

package fsutil

// mountUnder finds none on a system git-wt has no mount table reader for.
func mountUnder(string, bool) (string, error) { return "", nil }
