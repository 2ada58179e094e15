// Package e2e holds the end-to-end tests: the real git-wt binary, built
// once, run against real git repositories in temporary folders.
package e2e
