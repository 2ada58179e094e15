// Package e2e holds the end-to-end tests: the real git-wt binary, built
// once, run against real git repositories in temporary folders. They drive
// it through sh, fifos, signals and process groups: every test file is
// built on unix only (//go:build unix; add it to a new one). Windows gets
// a smoke of its own (SPEC §21).
package e2e
