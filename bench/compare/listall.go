//go:build unix

package main

import (
	"path/filepath"
	"time"
)

// benchListAll measures SPEC §9's bar for SPEC §20's survey: list --all
// --size of 50 worktrees (each one's changes, commits on no remote, last
// activity, processes and size, and the main worktree's) within 1.2× list
// --size of the same worktrees.
func benchListAll(env []string, root string) []row {
	repo := filepath.Join(root, "listall", "repo")
	makeRepo(env, repo, 200, 20)
	newTasks(env, repo, 50, "t%03d")
	wtD, sizeD := interleave(*rounds,
		func(int) time.Duration { return wt(env, repo, "list", "--all", "--size") },
		func(int) time.Duration { return wt(env, repo, "list", "--size") })
	r := ratioRow("list --all --size, 50 worktrees", 1.2, wtD, sizeD)
	r.note = "git: list --size of the same worktrees"
	return []row{r}
}
