//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// benchMachine measures list --machine over 20 repositories (SPEC §9:
// under 1 s without --size), each with two task worktrees, 15 of them
// registered by git-wt and 5 found only under Codex's worktree root,
// against a loop of plain git worktree list over the same repositories.
// It has a home of its own: the other rows' repositories are registered
// in the bench's.
func benchMachine(env []string, root string) []row {
	home := filepath.Join(root, "machine")
	env = append(env[:len(env):len(env)], "HOME="+home, "XDG_STATE_HOME=", "CODEX_HOME=")
	var repos []string
	for i := range 20 {
		repo := filepath.Join(home, "src", fmt.Sprintf("repo-%02d", i))
		makeRepo(env, repo, 200, 20)
		if i < 15 {
			for t := range 2 {
				wt(env, repo, "new", "--no-init", "--quiet", fmt.Sprintf("t%d", t))
			}
		} else {
			for t := range 2 {
				git(env, repo, "worktree", "add", "-q", "-b", fmt.Sprintf("codex-%d", t),
					filepath.Join(home, ".codex", "worktrees", fmt.Sprintf("%02d%d", i, t), filepath.Base(repo)))
			}
		}
		repos = append(repos, repo)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "git-wt", "repos")); err != nil {
		fail(fmt.Errorf("no registry after git wt new: %v", err))
	}
	wtD, gitD := interleave(*rounds,
		func(int) time.Duration { return wt(env, home, "list", "--machine") },
		func(int) time.Duration {
			var sum time.Duration
			for _, r := range repos {
				sum += git(env, r, "worktree", "list", "--porcelain")
			}
			return sum
		})
	r := absRow("list --machine, 20 repositories", time.Second, wtD, gitD)
	r.note = "git: a loop of git worktree list"
	sized := row{op: "list --machine --size, 20 repositories", bar: measured, pass: true,
		wt: median(times(*rounds, func() time.Duration { return wt(env, home, "list", "--machine", "--size") }))}
	return []row{r, sized}
}

// times runs f n times and returns each duration.
func times(n int, f func() time.Duration) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f()
	}
	return ds
}
